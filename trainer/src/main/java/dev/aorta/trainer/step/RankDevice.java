package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StreamRole;

/**
 * What a rank's step does besides collectives, each call issuing {@code op}'s work on {@code op.stream()}
 * (asynchronously on a GPU). {@link StepExecutor} makes the calls in the schedule's order, with the event records
 * and waits that order them across streams.
 */
public interface RankDevice {
    /** Records an event on {@code op}'s stream after {@code op}'s work, for later operations to wait for. */
    void recordAfter(ScheduledOp op);

    /** {@code stream} waits for the event recorded after {@code done}. */
    void waitFor(StreamRole stream, ScheduledOp done);

    /** The step's start marker; the local gradients are zeroed before the first backward accumulates. */
    void beginStep(ScheduledOp op);

    /** Copies micro-batch {@code op.microBatch()} to the device. */
    void copyBatch(ScheduledOp op);

    /** {@code unit}'s parameters were just gathered into its buffer: what was derived from the old values is stale. */
    void gathered(ScheduledOp op, FlatUnit unit);

    /** {@code unit}'s gathered parameters are no longer used by this pass. */
    void release(ScheduledOp op, FlatUnit unit);

    void forward(ScheduledOp op, Block block);

    /** Accumulates the block's parameter gradients into the local gradients. */
    void backward(ScheduledOp op, Block block);

    /**
     * The gradient norm of the rank's reduced gradients into {@link RankLayout#gradNorm()}; with
     * {@code shardSumOfSquares}, only the sum of squares of the rank's shard, which an all-reduce completes.
     */
    void gradNorm(ScheduledOp op, boolean shardSumOfSquares);

    /**
     * Clipping and the optimizer on the rank's owned pieces; with {@code normIsSumOfSquares}, the norm's region
     * holds the all-reduced sum of squares, whose root is the norm.
     */
    void optimizer(ScheduledOp op, boolean normIsSumOfSquares);

    /** The step's end marker, after every stream's work. */
    void endStep(ScheduledOp op);
}
