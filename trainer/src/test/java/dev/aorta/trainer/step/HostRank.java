package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StreamRole;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One rank on the host: its buffers as float arrays, {@link ToyModel}'s passes and the collectives through a
 * {@link HostWorld}, run asynchronously on {@link HostStreams} in the order the executor's event records and waits
 * give, as on a GPU: work that misses a wait may run before the work it depends on and compute from data not yet
 * there (or already overwritten), which shows in the results. Freed units are poisoned with NaN, so computing from
 * one, or a gather that a free overwrites, shows in the gradients. As a second, timing-free check, the issuing
 * thread follows the same records and waits as happens-before sets (each stream knows the operations guaranteed
 * to have run before its next one): a pass that reads a unit whose gather is not in that set, or a reduction that
 * reads gradients whose backward is not, is a violation.
 */
final class HostRank implements RankDevice, RankCollectives, AutoCloseable {
    /** The event the step's end marker records, which the host waits for (op indices are never negative). */
    private static final int STEP_END_EVENT = -1;

    private final ShardingPlan plan;
    private final RankLayout layout;
    private final int rank;
    private final int microBatches;
    private final double clip;
    private final HostWorld world;
    private final Map<Arena, float[][]> arenas = new EnumMap<>(Arena.class);
    private final Map<StreamRole, BitSet> before = new EnumMap<>(StreamRole.class);
    private final Map<Integer, BitSet> events = new HashMap<>();
    private final Map<StreamRole, Integer> lastOn = new EnumMap<>(StreamRole.class);
    private final int[] lastGather;
    private final int[] lastBackward;
    private final int[] lastReduction;
    private final boolean[] released;
    private final Map<Block, Double> forwardSums = new ConcurrentHashMap<>();
    private final HostStreams streams;
    /** Collectives issued to each group so far: the n-th meets every member's n-th. */
    private final Map<List<Integer>, Long> issuedTo = new HashMap<>();
    private final float[] batch;
    /** The step in which each operation (by index) was last logged as a collective. */
    private final Map<Integer, Integer> loggedSteps = new HashMap<>();
    private int lastH2d = -1;
    private int normReduced = -1;
    private int step = -1;
    final List<String> violations = new ArrayList<>();
    final Map<StreamRole, List<String>> collectivesOn = new EnumMap<>(StreamRole.class);
    final List<Double> norms = Collections.synchronizedList(new ArrayList<>());

    HostRank(ShardingPlan plan, int rank, int microBatches, double clip, HostWorld world) {
        this.plan = plan;
        this.layout = new RankLayout(plan, rank);
        this.rank = rank;
        this.microBatches = microBatches;
        this.clip = clip;
        this.world = world;
        int n = plan.units().size();
        float[][] initial = ToyModel.initialParameters(plan);
        float[][] params = new float[n][];
        float[][] grads = new float[n][];
        float[][] shardParams = new float[n][];
        float[][] shardGrads = new float[n][];
        for (int u = 0; u < n; u++) {
            FlatUnit unit = plan.units().get(u);
            params[u] = new float[(int) unit.paddedNumel()];
            grads[u] = new float[(int) unit.paddedNumel()];
            shardParams[u] = new float[(int) unit.shardNumel()];
            shardGrads[u] = new float[(int) unit.shardNumel()];
            if (layout.sharded()) {
                Arrays.fill(params[u], Float.NaN); // nothing gathered yet
                long start = layout.ownedRange(unit).start();
                System.arraycopy(initial[u], (int) start, shardParams[u], 0, shardParams[u].length);
            } else {
                params[u] = initial[u];
            }
        }
        arenas.put(Arena.PARAMS, params);
        arenas.put(Arena.GRADS, grads);
        arenas.put(Arena.SHARD_PARAMS, shardParams);
        arenas.put(Arena.SHARD_GRADS, shardGrads);
        arenas.put(Arena.GRAD_NORM, new float[][] {new float[1]});
        for (StreamRole s : StreamRole.values()) {
            before.put(s, new BitSet());
            collectivesOn.put(s, new ArrayList<>());
        }
        lastGather = new int[n];
        lastBackward = new int[n];
        lastReduction = new int[n];
        Arrays.fill(lastGather, -1);
        Arrays.fill(lastBackward, -1);
        Arrays.fill(lastReduction, -1);
        released = new boolean[n];
        batch = new float[microBatches];
        streams = new HostStreams("rank" + rank);
    }

    /** Blocks until the last issued step's end marker has run on the compute stream (the trainer's wait). */
    void awaitStepEnd() {
        streams.synchronize(STEP_END_EVENT);
    }

    /** Lets the streams finish and stops them: afterwards {@link #read} sees the final values. */
    @Override
    public void close() {
        streams.close();
    }

    RankLayout layout() {
        return layout;
    }

    /** A copy of a region's values (on the stream that reads it, or after {@link #close}). */
    float[] read(Region r) {
        return Arrays.copyOfRange(arenas.get(r.arena())[r.unit()], (int) r.offset(), (int) r.end());
    }

    private void write(Region r, float[] values) {
        System.arraycopy(values, 0, arenas.get(r.arena())[r.unit()], (int) r.offset(), (int) r.count());
    }

    /** {@code op} has run: later operations on its stream come after it. */
    private void ran(ScheduledOp op) {
        before.get(op.stream()).set(op.index());
        lastOn.put(op.stream(), op.index());
    }

    private void require(ScheduledOp op, int mustHaveRun, String what) {
        if (mustHaveRun >= 0 && !before.get(op.stream()).get(mustHaveRun)) {
            violations.add("step " + step + ": " + op + " is not ordered after " + what + " (op " + mustHaveRun + ")");
        }
    }

    @Override
    public void recordAfter(ScheduledOp op) {
        events.put(op.index(), (BitSet) before.get(op.stream()).clone());
        streams.record(op.index(), op.stream());
    }

    @Override
    public void waitFor(StreamRole stream, ScheduledOp done) {
        BitSet e = events.get(done.index());
        if (e == null) {
            violations.add("step " + step + ": " + stream + " waits for " + done + ", whose event was never recorded");
            return;
        }
        before.get(stream).or(e);
        streams.waitFor(stream, done.index());
    }

    @Override
    public void beginStep(ScheduledOp op) {
        step++;
        for (StreamRole s : StreamRole.values()) {
            before.get(s).clear(); // indices restart: only this step's operations count from here
        }
        events.clear();
        lastOn.clear();
        Arrays.fill(lastGather, -1);
        Arrays.fill(lastBackward, -1);
        Arrays.fill(lastReduction, -1);
        normReduced = -1;
        streams.enqueue(op.stream(), () -> {
            for (float[] g : arenas.get(Arena.GRADS)) {
                Arrays.fill(g, 0f);
            }
        });
        ran(op);
    }

    @Override
    public void copyBatch(ScheduledOp op) {
        float x = ToyModel.batchValue(rank, step, op.microBatch());
        streams.enqueue(op.stream(), () -> batch[op.microBatch()] = x);
        lastH2d = op.index();
        ran(op);
    }

    @Override
    public void gathered(ScheduledOp op, FlatUnit unit) {
        released[layout.unitIndex(unit)] = false;
    }

    @Override
    public void release(ScheduledOp op, FlatUnit unit) {
        int u = layout.unitIndex(unit);
        streams.enqueue(op.stream(), () -> Arrays.fill(arenas.get(Arena.PARAMS)[u], Float.NaN));
        released[u] = true;
        ran(op);
    }

    private int unitOf(Block b) {
        return b.kind() == Block.Kind.LAYER ? b.layer() + 1 : 0;
    }

    private void requireGathered(ScheduledOp op, int u) {
        if (!layout.sharded()) {
            return;
        }
        if (released[u]) {
            violations.add("step " + step + ": " + op + " computes from unit " + u + " after it was freed");
        }
        require(op, lastGather[u], "the gather of unit " + u);
    }

    @Override
    public void forward(ScheduledOp op, Block block) {
        int u = unitOf(block);
        requireGathered(op, u);
        if (block.equals(Block.STEM)) {
            require(op, lastH2d, "its batch's copy");
        }
        streams.enqueue(op.stream(), () -> forwardSums.put(block,
                ToyModel.blockSum(plan.units().get(u), arenas.get(Arena.PARAMS)[u], block)));
        ran(op);
    }

    @Override
    public void backward(ScheduledOp op, Block block) {
        int u = unitOf(block);
        requireGathered(op, u);
        FlatUnit unit = plan.units().get(u);
        streams.enqueue(op.stream(), () -> {
            float[] p = arenas.get(Arena.PARAMS)[u];
            float[] g = arenas.get(Arena.GRADS)[u];
            double sum = forwardSums.get(block);
            float x = batch[op.microBatch()];
            for (FlatUnit.Slot s : unit.slots()) {
                if (s.param().block().equals(block)) {
                    for (long e = s.offset(); e < s.offset() + s.param().numel(); e++) {
                        g[(int) e] += (float) (((double) p[(int) e] * x + sum * ToyModel.eps(e)) / microBatches);
                    }
                }
            }
        });
        lastBackward[u] = op.index();
        ran(op);
    }

    @Override
    public void gradNorm(ScheduledOp op, boolean shardSumOfSquares) {
        for (FlatUnit unit : plan.units()) {
            require(op, lastReduction[layout.unitIndex(unit)], "the reduction of " + unit.name());
            require(op, lastBackward[layout.unitIndex(unit)], "the backward of " + unit.name());
        }
        streams.enqueue(op.stream(), () -> {
            double squares = 0;
            for (FlatUnit unit : plan.units()) {
                for (RankLayout.OwnedPiece piece : layout.ownedPieces(unit)) {
                    for (float v : read(piece.grads())) {
                        squares += (double) v * v;
                    }
                }
            }
            arenas.get(Arena.GRAD_NORM)[0][0] = (float) (shardSumOfSquares ? squares : Math.sqrt(squares));
        });
        ran(op);
    }

    @Override
    public void optimizer(ScheduledOp op, boolean normIsSumOfSquares) {
        require(op, normReduced, "the gradient norm's all-reduce");
        streams.enqueue(op.stream(), () -> {
            float stored = arenas.get(Arena.GRAD_NORM)[0][0];
            double norm = normIsSumOfSquares ? Math.sqrt(stored) : stored;
            norms.add(norm);
            double c = clip > 0 ? Math.min(1, clip / (norm + 1e-6)) : 1;
            for (FlatUnit unit : plan.units()) {
                for (RankLayout.OwnedPiece piece : layout.ownedPieces(unit)) {
                    float[] p = read(piece.params());
                    float[] g = read(piece.grads());
                    for (int i = 0; i < p.length; i++) {
                        p[i] -= (float) (ToyModel.LR * c * g[i]);
                    }
                    write(piece.params(), p);
                }
            }
        });
        ran(op);
    }

    @Override
    public void endStep(ScheduledOp op) {
        for (Map.Entry<StreamRole, Integer> last : lastOn.entrySet()) {
            require(op, last.getValue(), "the last operation on " + last.getKey().label());
        }
        streams.record(STEP_END_EVENT, op.stream());
        ran(op);
    }

    private int[] members(Collective.Group group) {
        return group == Collective.Group.SHARD ? plan.shardGroup(rank) : plan.replicaGroup(rank);
    }

    /** The index of this collective among those the rank issued to {@code group}'s members so far. */
    private long sequence(int[] group) {
        return issuedTo.merge(Arrays.stream(group).boxed().toList(), 1L, Long::sum);
    }

    private void logCollective(ScheduledOp op) {
        if (loggedSteps.getOrDefault(op.index(), -1) != step) { // a DDP bucket's runs are one operation
            loggedSteps.put(op.index(), step);
            collectivesOn.get(op.stream()).add(op.kind() + " " + op.target());
        }
    }

    @Override
    public void allGather(ScheduledOp op, Region send, Region recv, Collective.Group group) {
        int[] m = members(group);
        if (recv.count() != m.length * send.count()) {
            violations.add(op + ": all-gather of " + send.count() + " elements per rank into " + recv.count());
        }
        long n = sequence(m);
        streams.enqueue(op.stream(), () -> {
            float[][] all = world.exchange(m, n, rank, op.kind() + " " + op.target() + " " + send.count(),
                    read(send));
            float[] out = new float[(int) recv.count()];
            for (int g = 0; g < m.length; g++) {
                System.arraycopy(all[g], 0, out, (int) (g * send.count()), (int) send.count());
            }
            write(recv, out);
        });
        lastGather[recv.unit()] = op.index();
        logCollective(op);
        ran(op);
    }

    @Override
    public void reduceScatter(ScheduledOp op, Region send, Region recv, Collective.Group group, Reduction reduction) {
        int[] m = members(group);
        require(op, lastBackward[send.unit()], "the backward producing its gradients");
        long n = sequence(m);
        streams.enqueue(op.stream(), () -> {
            float[][] all = world.exchange(m, n, rank, op.kind() + " " + op.target() + " " + send.count(),
                    read(send));
            int me = Arrays.stream(m).boxed().toList().indexOf(rank);
            float[] out = new float[(int) recv.count()];
            for (int i = 0; i < out.length; i++) {
                out[i] = combine(all, (int) (me * recv.count() + i), reduction);
            }
            write(recv, out);
        });
        lastReduction[recv.unit()] = op.index();
        logCollective(op);
        ran(op);
    }

    @Override
    public void allReduce(ScheduledOp op, Region buffer, Collective.Group group, Reduction reduction) {
        int[] m = members(group);
        if (buffer.arena() == Arena.GRADS || buffer.arena() == Arena.SHARD_GRADS) {
            require(op, lastBackward[buffer.unit()], "the backward producing its gradients");
        }
        long n = sequence(m);
        streams.enqueue(op.stream(), () -> {
            float[][] all = world.exchange(m, n, rank, op.kind() + " " + op.target() + " " + buffer, read(buffer));
            float[] out = new float[(int) buffer.count()];
            for (int i = 0; i < out.length; i++) {
                out[i] = combine(all, i, reduction);
            }
            write(buffer, out);
        });
        if (buffer.arena() == Arena.GRAD_NORM) {
            normReduced = op.index();
        } else {
            // a unit's gradients may be reduced in parts (DDP buckets): the last part orders the rest on its stream
            lastReduction[buffer.unit()] = Math.max(lastReduction[buffer.unit()], op.index());
        }
        logCollective(op);
        ran(op);
    }

    private static float combine(float[][] all, int i, Reduction reduction) {
        double s = 0;
        for (float[] a : all) {
            s += a[i];
        }
        return (float) (reduction == Reduction.MEAN ? s / all.length : s);
    }
}
