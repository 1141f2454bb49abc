package dev.aorta.trainer.schedule;

/** What a scheduled operation does. */
public enum OpKind {
    /** Marks the step's start on compute; every other stream waits for it before its first operation. */
    STEP_BEGIN,
    /** The micro-batch's host-to-device copy. */
    H2D,
    ALL_GATHER,
    /** Returns a unit's gathered parameters to the allocator, in compute-stream order after their last use. */
    FREE,
    FORWARD,
    BACKWARD,
    REDUCE_SCATTER,
    ALL_REDUCE,
    /** The sum of squares of the rank's reduced gradient shard (before the shard group's all-reduce of it). */
    GRAD_NORM,
    /** Gradient clipping and AdamW on the rank's shards, and the learning-rate step. */
    OPTIMIZER,
    /** Compute waits for every stream's last operation: the next step starts after everything of this one. */
    STEP_END
}
