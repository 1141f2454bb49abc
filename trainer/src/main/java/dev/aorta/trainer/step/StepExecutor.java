package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.GradientBucket;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.OpKind;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StepSchedule;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Issues one step of a {@link StepSchedule} for one rank: each operation in order, after making its stream wait
 * for the events of the operations it depends on, and followed by an event record where a later operation waits
 * for it. Which buffers each collective reads and writes comes from the rank's {@link RankLayout}:
 * <ul>
 *   <li>all-gather: the rank's parameter shard into the unit's gathered buffer, over the shard group;</li>
 *   <li>reduce-scatter: the unit's local gradients into the rank's gradient shard, averaged over the shard group;</li>
 *   <li>all-reduce of a unit: its gradient shard (the whole unit when not sharded) averaged over the replica group
 *       (hybrid_shard's cross-node step, no_shard); of a DDP bucket: its runs of local gradients; of the gradient
 *       norm: the shards' sums of squares, summed over the shard group.</li>
 * </ul>
 * The executor never waits for the device itself: the host issues the whole step and the streams order it.
 */
public final class StepExecutor {
    private final StepSchedule schedule;
    private final RankLayout layout;
    private final RankDevice device;
    private final RankCollectives collectives;
    private final Set<Integer> waitedFor = new HashSet<>();
    /** Whether the schedule all-reduces the gradient norm: each rank then computes its shard's sum of squares. */
    private final boolean normFromShards;

    public StepExecutor(StepSchedule schedule, RankLayout layout, RankDevice device, RankCollectives collectives) {
        this.schedule = schedule;
        this.layout = layout;
        this.device = device;
        this.collectives = collectives;
        for (ScheduledOp op : schedule.ops()) {
            waitedFor.addAll(op.waits());
        }
        this.normFromShards = schedule.ops().stream()
                .anyMatch(o -> o.kind() == OpKind.ALL_REDUCE && o.target().equals("grad_norm"));
    }

    /** Issues every operation of one step. */
    public void issueStep() {
        List<ScheduledOp> ops = schedule.ops();
        for (ScheduledOp op : ops) {
            for (int w : op.waits()) {
                device.waitFor(op.stream(), ops.get(w));
            }
            issue(op);
            if (waitedFor.contains(op.index())) {
                device.recordAfter(op);
            }
        }
    }

    private void issue(ScheduledOp op) {
        ShardingPlan plan = layout.plan();
        switch (op.kind()) {
            case STEP_BEGIN -> device.beginStep(op);
            case H2D -> device.copyBatch(op);
            case ALL_GATHER -> {
                FlatUnit unit = layout.unit(op.target());
                collectives.allGather(op, layout.ownedParams(unit), layout.gathered(unit), Collective.Group.SHARD);
                device.gathered(op, unit);
            }
            case FREE -> device.release(op, layout.unit(op.target()));
            case FORWARD -> device.forward(op, block(op.target()));
            case BACKWARD -> device.backward(op, block(op.target()));
            case REDUCE_SCATTER -> {
                FlatUnit unit = layout.unit(op.target());
                collectives.reduceScatter(op, layout.localGrads(unit), layout.ownedGrads(unit),
                        Collective.Group.SHARD, Reduction.MEAN);
            }
            case ALL_REDUCE -> {
                if (op.target().equals("grad_norm")) {
                    collectives.allReduce(op, layout.gradNorm(), Collective.Group.SHARD, Reduction.SUM);
                } else if (op.target().startsWith("bucket.")) {
                    GradientBucket bucket = plan.buckets().get(Integer.parseInt(op.target().substring(7)));
                    for (Region run : layout.bucketRuns(bucket)) {
                        collectives.allReduce(op, run, Collective.Group.REPLICA, Reduction.MEAN);
                    }
                } else {
                    collectives.allReduce(op, layout.ownedGrads(layout.unit(op.target())), Collective.Group.REPLICA,
                            Reduction.MEAN);
                }
            }
            case GRAD_NORM -> device.gradNorm(op, normFromShards);
            case OPTIMIZER -> device.optimizer(op, normFromShards);
            case STEP_END -> device.endStep(op);
        }
    }

    /** A block by its schedule name: "stem", "head" or "layers.i". */
    static Block block(String name) {
        return switch (name) {
            case "stem" -> Block.STEM;
            case "head" -> Block.HEAD;
            default -> {
                if (!name.startsWith("layers.")) {
                    throw new IllegalArgumentException("no block " + name);
                }
                yield Block.layer(Integer.parseInt(name.substring(7)));
            }
        };
    }
}
