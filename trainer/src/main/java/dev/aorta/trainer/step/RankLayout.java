package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.ElementRange;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.GradientBucket;
import dev.aorta.trainer.plan.ParameterSpec;
import dev.aorta.trainer.plan.ShardingPlan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One rank's view of the sharding plan as buffer regions: where each unit's gathered parameters and local
 * gradients are, which of their elements the rank owns (its shard), the pieces of each parameter inside that
 * shard (what the optimizer steps), and the runs of local gradient a DDP bucket's all-reduce covers.
 */
public final class RankLayout {
    private final ShardingPlan plan;
    private final int rank;
    private final Map<String, Integer> unitIndex = new HashMap<>();
    private final Map<String, Located> parameters = new HashMap<>();

    /** Where a parameter is: its unit's index and its place in the unit's flat buffer. */
    public record Located(int unit, FlatUnit.Slot slot) {
    }

    /**
     * The part of a parameter that this rank owns: elements [paramOffset, paramOffset + count) of the
     * parameter, at {@code params} and {@code grads} in the rank's shard buffers.
     */
    public record OwnedPiece(ParameterSpec param, long paramOffset, Region params, Region grads) {
        /** Whether the rank owns the whole parameter. */
        public boolean whole() {
            return paramOffset == 0 && params.count() == param.numel();
        }
    }

    public RankLayout(ShardingPlan plan, int rank) {
        if (rank < 0 || rank >= plan.worldSize()) {
            throw new IllegalArgumentException("rank " + rank + " is outside the world of " + plan.worldSize());
        }
        this.plan = plan;
        this.rank = rank;
        for (int u = 0; u < plan.units().size(); u++) {
            FlatUnit unit = plan.units().get(u);
            unitIndex.put(unit.name(), u);
            for (FlatUnit.Slot s : unit.slots()) {
                parameters.put(s.param().name(), new Located(u, s));
            }
        }
    }

    public ShardingPlan plan() {
        return plan;
    }

    public int rank() {
        return rank;
    }

    /** Whether the rank keeps only a shard of each unit (its shard group has more than one rank). */
    public boolean sharded() {
        return plan.shardGroupSize() > 1;
    }

    public int unitIndex(FlatUnit unit) {
        return unitIndex(unit.name());
    }

    public int unitIndex(String unitName) {
        Integer u = unitIndex.get(unitName);
        if (u == null) {
            throw new IllegalArgumentException("no sharding unit " + unitName + "; the plan has " + unitIndex.keySet());
        }
        return u;
    }

    public FlatUnit unit(String name) {
        return plan.units().get(unitIndex(name));
    }

    /** The parameter {@code name}, or an error naming what the plan has (the model and the plan must agree). */
    public Located locate(String name) {
        Located l = parameters.get(name);
        if (l == null) {
            throw new IllegalArgumentException("the model creates parameter " + name + ", which the sharding plan"
                    + " does not list (ModelParameters and the model disagree)");
        }
        return l;
    }

    /** The unit's parameters, all of them: what its all-gather fills and the model computes from. */
    public Region gathered(FlatUnit unit) {
        return new Region(Arena.PARAMS, unitIndex(unit), 0, unit.paddedNumel());
    }

    /** The unit's local gradients, all of them: what backward accumulates into and the reductions read. */
    public Region localGrads(FlatUnit unit) {
        return new Region(Arena.GRADS, unitIndex(unit), 0, unit.paddedNumel());
    }

    /** The rank's shard of the unit's parameters (the whole unit when not sharded). */
    public Region ownedParams(FlatUnit unit) {
        return sharded() ? new Region(Arena.SHARD_PARAMS, unitIndex(unit), 0, unit.shardNumel()) : gathered(unit);
    }

    /** The rank's shard of the unit's reduced gradients (the whole unit, reduced in place, when not sharded). */
    public Region ownedGrads(FlatUnit unit) {
        return sharded() ? new Region(Arena.SHARD_GRADS, unitIndex(unit), 0, unit.shardNumel()) : localGrads(unit);
    }

    /** Where the gradient norm (or, before its all-reduce, the shard's sum of squares) is. */
    public Region gradNorm() {
        return new Region(Arena.GRAD_NORM, 0, 0, 1);
    }

    /** The unit's elements this rank owns, as a range of the unit's flat buffer. */
    public ElementRange ownedRange(FlatUnit unit) {
        return sharded() ? plan.owned(rank, unit) : new ElementRange(0, unit.paddedNumel());
    }

    /**
     * The pieces of the unit's parameters inside this rank's shard, in the unit's order: alignment gaps and
     * padding are left out (the optimizer and the gradient norm see parameter elements only).
     */
    public List<OwnedPiece> ownedPieces(FlatUnit unit) {
        ElementRange shard = ownedRange(unit);
        Region params = ownedParams(unit);
        Region grads = ownedGrads(unit);
        List<OwnedPiece> out = new ArrayList<>();
        for (FlatUnit.Slot s : unit.slots()) {
            long from = Math.max(s.offset(), shard.start());
            long to = Math.min(s.offset() + s.param().numel(), shard.end());
            if (from < to) {
                long at = from - shard.start();
                out.add(new OwnedPiece(s.param(), from - s.offset(),
                        new Region(params.arena(), params.unit(), params.offset() + at, to - from),
                        new Region(grads.arena(), grads.unit(), grads.offset() + at, to - from)));
            }
        }
        return out;
    }

    /**
     * The local-gradient runs a DDP bucket's all-reduce covers: its parameters' slots, merged where they are
     * neighbours in a unit's buffer (the gaps between them hold zeros), one run per unit at most.
     */
    public List<Region> bucketRuns(GradientBucket bucket) {
        List<Located> located = bucket.params().stream().map(p -> locate(p.name()))
                .sorted(Comparator.comparingInt(Located::unit).thenComparingLong(l -> l.slot().offset())).toList();
        List<Region> runs = new ArrayList<>();
        for (Located l : located) {
            long start = l.slot().offset();
            long end = start + l.slot().param().numel();
            Region last = runs.isEmpty() ? null : runs.getLast();
            if (last != null && last.unit() == l.unit()) {
                runs.set(runs.size() - 1, new Region(Arena.GRADS, l.unit(), last.offset(), end - last.offset()));
            } else {
                runs.add(new Region(Arena.GRADS, l.unit(), start, end - start));
            }
        }
        return runs;
    }
}
