package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.schedule.ScheduledOp;

/**
 * A rank's collectives over its shard group or replica group ({@link dev.aorta.trainer.plan.ShardingPlan}), issued on
 * {@code op.stream()}. Every rank of the group makes the same calls in the same order, as NCCL requires.
 */
public interface RankCollectives {
    /** {@code recv} (group size × send.count elements) receives every group member's {@code send}, by group rank. */
    void allGather(ScheduledOp op, Region send, Region recv, Collective.Group group);

    /** {@code recv} receives this rank's part (by group rank) of the members' {@code send}, combined. */
    void reduceScatter(ScheduledOp op, Region send, Region recv, Collective.Group group, Reduction reduction);

    /** {@code buffer} becomes the members' {@code buffer}, combined, on every member. */
    void allReduce(ScheduledOp op, Region buffer, Collective.Group group, Reduction reduction);
}
