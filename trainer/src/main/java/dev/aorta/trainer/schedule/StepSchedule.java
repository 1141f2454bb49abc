package dev.aorta.trainer.schedule;

import dev.aorta.trainer.config.DistributedConfig.CollectiveStreams;
import dev.aorta.trainer.config.FsdpConfig;
import dev.aorta.trainer.config.FsdpConfig.BackwardPrefetch;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.GradientBucket;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp.Phase;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operations of one training step on the four streams, in host issue order, with the event waits that order
 * them across streams: pure data, the same on every rank, which the GPU executor replays (and may capture as a
 * CUDA graph). docs/trainer.md, "Step schedule", describes the order; in short, per micro-batch:
 * <ol>
 *   <li>the batch's H2D copy on aux; the root unit's gather (first micro-batch only: the root stays gathered);</li>
 *   <li>forward: stem, each layer (its gather before it; with {@code forward_prefetch} the next layer's gather is
 *       issued before this layer's forward; full_shard frees the layer after it), head and loss;</li>
 *   <li>backward: head, layers in reverse (full_shard re-gathers each: {@code backward_prefetch} BACKWARD_PRE issues
 *       the next layer's gather before this layer's backward, BACKWARD_POST after it, none when the next layer's
 *       backward starts), stem;</li>
 *   <li>on the last micro-batch only (no_sync), each unit's gradient reduction as soon as its backward is done.</li>
 * </ol>
 * Then the gradient norm (its shard-group all-reduce when sharded), the optimizer on the shards, and the step end.
 * A unit's gather waits until the unit's previous gather is freed (it overwrites that buffer), and
 * {@code limit_all_gathers} makes each layer gather also wait until the layer gathered two gathers earlier is freed.
 * With {@code collective_streams: compute} every collective runs on the compute stream, in issue order.
 */
public record StepSchedule(List<ScheduledOp> ops) {

    public StepSchedule {
        ops = List.copyOf(ops);
        for (ScheduledOp op : ops) {
            for (int w : op.waits()) {
                if (w >= op.index() || ops.get(w).stream() == op.stream()) {
                    throw new IllegalArgumentException("op " + op + " waits for " + ops.get(w)
                            + ", which is not an earlier operation on another stream");
                }
            }
        }
    }

    public static StepSchedule of(ShardingPlan plan, TrainerConfig config) {
        return new Builder(plan, config).build();
    }

    /** The operations on {@code stream}, in the order the stream runs them. */
    public List<ScheduledOp> on(StreamRole stream) {
        return ops.stream().filter(o -> o.stream() == stream).toList();
    }

    private static final class Builder {
        private final ShardingPlan plan;
        private final FsdpConfig fsdp;
        private final boolean collectivesOnCompute;
        private final int microBatches;
        private final List<ScheduledOp> ops = new ArrayList<>();
        private final Map<StreamRole, Integer> lastOn = new EnumMap<>(StreamRole.class);
        /** Layer gathers in issue order, with the operation that releases each (null until it is issued). */
        private final List<int[]> layerGathers = new ArrayList<>();
        private final Set<Integer> reductions = new LinkedHashSet<>();
        /** Each unit's last FREE so far: its buffer's next gather overwrites what that pass read. */
        private final Map<String, Integer> lastRelease = new HashMap<>();
        /** This micro-batch's forward gathers, which serve the backward too when the layer is not re-gathered. */
        private Integer[] forwardGathers;

        Builder(ShardingPlan plan, TrainerConfig config) {
            this.plan = plan;
            this.fsdp = config.fsdp();
            this.collectivesOnCompute = config.distributed().collectiveStreams() == CollectiveStreams.COMPUTE;
            this.microBatches = config.training().gradientAccumulation();
        }

        StepSchedule build() {
            int begin = issue(OpKind.STEP_BEGIN, StreamRole.COMPUTE, "", 0, Phase.STEP, null);
            Integer rootGather = null;
            for (int m = 0; m < microBatches; m++) {
                int h2d = issue(OpKind.H2D, StreamRole.AUX, "batch", m, Phase.STEP, null, begin);
                if (m == 0 && plan.gathersBeforeForward(plan.root())) {
                    rootGather = gather(plan.root(), m, Phase.FORWARD);
                }
                forward(m, h2d, rootGather);
                backward(m, rootGather, m == microBatches - 1);
            }
            int norm = issue(OpKind.GRAD_NORM, StreamRole.COMPUTE, "grad_norm", 0, Phase.STEP, null,
                    reductions.stream().mapToInt(Integer::intValue).toArray());
            int normReduced = norm;
            if (plan.mode().sharded() && plan.shardGroupSize() > 1) {
                normReduced = issue(OpKind.ALL_REDUCE, collectiveStream(StreamRole.ALLREDUCE), "grad_norm", 0,
                        Phase.STEP, new Collective(Collective.Kind.ALL_REDUCE, Collective.Group.SHARD, Float.BYTES,
                                Float.BYTES), norm);
            }
            issue(OpKind.OPTIMIZER, StreamRole.COMPUTE, "", 0, Phase.STEP, null, normReduced);
            issue(OpKind.STEP_END, StreamRole.COMPUTE, "", 0, Phase.STEP, null,
                    lastOn.values().stream().mapToInt(Integer::intValue).toArray());
            return new StepSchedule(ops);
        }

        private void forward(int m, int h2d, Integer rootGather) {
            int n = plan.layers().size();
            boolean gathers = plan.gathersBeforeForward(plan.root());
            Integer[] gathered = new Integer[n];
            if (gathers && fsdp.forwardPrefetch() && n > 0) {
                gathered[0] = gather(plan.layer(0), m, Phase.FORWARD);
            }
            issue(OpKind.FORWARD, StreamRole.COMPUTE, Block.STEM.toString(), m, Phase.FORWARD, null, h2d,
                    orNone(rootGather));
            for (int i = 0; i < n; i++) {
                FlatUnit layer = plan.layer(i);
                if (gathers && gathered[i] == null) {
                    gathered[i] = gather(layer, m, Phase.FORWARD);
                }
                if (gathers && fsdp.forwardPrefetch() && i + 1 < n) {
                    gathered[i + 1] = gather(plan.layer(i + 1), m, Phase.FORWARD);
                }
                issue(OpKind.FORWARD, StreamRole.COMPUTE, layer.name(), m, Phase.FORWARD, null, orNone(gathered[i]));
                // shard_grad_op keeps the layer until after its backward, where its gather is released instead
                if (gathers && plan.regathersForBackward(layer)) {
                    released(gathered[i], issue(OpKind.FREE, StreamRole.COMPUTE, layer.name(), m, Phase.FORWARD, null));
                }
            }
            forwardGathers = gathered;
            issue(OpKind.FORWARD, StreamRole.COMPUTE, Block.HEAD.toString(), m, Phase.FORWARD, null);
        }

        private void backward(int m, Integer rootGather, boolean reduce) {
            int n = plan.layers().size();
            BackwardPrefetch prefetch = fsdp.backwardPrefetch();
            Integer[] gathered = new Integer[n];
            boolean regather = n > 0 && plan.regathersForBackward(plan.layer(0));
            if (regather && prefetch == BackwardPrefetch.BACKWARD_PRE) {
                gathered[n - 1] = gather(plan.layer(n - 1), m, Phase.BACKWARD);
            }
            int head = issue(OpKind.BACKWARD, StreamRole.COMPUTE, Block.HEAD.toString(), m, Phase.BACKWARD, null);
            if (reduce) {
                reduceBuckets(Block.HEAD, head);
            }
            for (int i = n - 1; i >= 0; i--) {
                FlatUnit layer = plan.layer(i);
                if (regather && gathered[i] == null) {
                    gathered[i] = gather(layer, m, Phase.BACKWARD);
                }
                if (regather && prefetch == BackwardPrefetch.BACKWARD_PRE && i > 0) {
                    gathered[i - 1] = gather(plan.layer(i - 1), m, Phase.BACKWARD);
                }
                Integer params = regather ? gathered[i] : forwardGathers[i];
                int b = issue(OpKind.BACKWARD, StreamRole.COMPUTE, layer.name(), m, Phase.BACKWARD, null,
                        orNone(params));
                if (params != null) {
                    released(params, issue(OpKind.FREE, StreamRole.COMPUTE, layer.name(), m, Phase.BACKWARD, null));
                }
                if (regather && prefetch == BackwardPrefetch.BACKWARD_POST && i > 0) {
                    gathered[i - 1] = gather(plan.layer(i - 1), m, Phase.BACKWARD);
                }
                if (reduce) {
                    reduceUnit(layer, b);
                    reduceBuckets(Block.layer(i), b);
                }
            }
            int stem = issue(OpKind.BACKWARD, StreamRole.COMPUTE, Block.STEM.toString(), m, Phase.BACKWARD, null);
            if (reduce) {
                if (rootGather != null) {
                    issue(OpKind.FREE, StreamRole.COMPUTE, plan.root().name(), m, Phase.BACKWARD, null);
                }
                reduceUnit(plan.root(), stem);
                reduceBuckets(Block.STEM, stem);
            }
        }

        /** The unit's reduction once {@code gradientsReady} ran: reduce-scatter (+ hybrid all-reduce) or all-reduce. */
        private void reduceUnit(FlatUnit unit, int gradientsReady) {
            int after = gradientsReady;
            for (Collective c : plan.reduction(unit)) {
                OpKind kind = c.kind() == Collective.Kind.REDUCE_SCATTER ? OpKind.REDUCE_SCATTER : OpKind.ALL_REDUCE;
                StreamRole stream = kind == OpKind.REDUCE_SCATTER ? StreamRole.REDUCESCATTER : StreamRole.ALLREDUCE;
                after = issue(kind, collectiveStream(stream), unit.name(), microBatches - 1, Phase.BACKWARD, c, after);
                reductions.add(after);
            }
        }

        private void reduceBuckets(Block block, int gradientsReady) {
            if (plan.worldSize() == 1) {
                return;
            }
            for (GradientBucket bucket : plan.buckets()) {
                if (bucket.readyAfter().equals(block)) {
                    reductions.add(issue(OpKind.ALL_REDUCE, collectiveStream(StreamRole.ALLREDUCE),
                            "bucket." + bucket.index(), microBatches - 1, Phase.BACKWARD,
                            new Collective(Collective.Kind.ALL_REDUCE, Collective.Group.REPLICA, bucket.bytes(),
                                    bucket.bytes()), gradientsReady));
                }
            }
        }

        /**
         * Issues a unit's all-gather, after the release of the unit's previous gather (the gather overwrites the
         * buffer that pass read: without the wait a prefetch on its own stream could run while compute still reads
         * it). A layer gather under limit_all_gathers (when layers are freed after forward: full_shard,
         * hybrid_shard) also waits for the release of the layer gathered two gathers earlier.
         */
        private int gather(FlatUnit unit, int m, Phase phase) {
            Collective c = plan.gather(unit).orElseThrow();
            int wait = -1;
            if (!unit.isRoot() && fsdp.limitAllGathers() && plan.mode().reshardsAfterForward()
                    && layerGathers.size() >= 2) {
                int[] twoBack = layerGathers.get(layerGathers.size() - 2);
                if (twoBack[1] < 0) {
                    throw new IllegalStateException("schedule: the gather of " + unit.name() + " would wait for a"
                            + " release not yet issued (" + ops.get(twoBack[0]) + ")");
                }
                wait = twoBack[1];
            }
            int op = issue(OpKind.ALL_GATHER, collectiveStream(StreamRole.AUX), unit.name(), m, phase, c, wait,
                    lastRelease.getOrDefault(unit.name(), -1));
            if (!unit.isRoot()) {
                layerGathers.add(new int[] {op, -1});
            }
            return op;
        }

        private void released(int gather, int release) {
            for (int[] g : layerGathers) {
                if (g[0] == gather) {
                    g[1] = release;
                }
            }
        }

        private StreamRole collectiveStream(StreamRole dedicated) {
            return collectivesOnCompute ? StreamRole.COMPUTE : dedicated;
        }

        private static int orNone(Integer op) {
            return op == null ? -1 : op;
        }

        /** Appends an operation; waits on its own stream (implied by stream order) and negative ones are dropped. */
        private int issue(OpKind kind, StreamRole stream, String target, int m, Phase phase, Collective c,
                          int... after) {
            int index = ops.size();
            Set<Integer> waits = new LinkedHashSet<>();
            if (stream != StreamRole.COMPUTE && !lastOn.containsKey(stream) && kind != OpKind.STEP_BEGIN) {
                waits.add(0); // a stream's first operation of the step waits for STEP_BEGIN
            }
            for (int a : after) {
                if (a >= 0 && ops.get(a).stream() != stream) {
                    waits.add(a);
                }
            }
            ops.add(new ScheduledOp(index, kind, stream, target, m, phase, c, List.copyOf(waits)));
            lastOn.put(stream, index);
            if (kind == OpKind.FREE) {
                lastRelease.put(target, index);
            }
            return index;
        }
    }
}
