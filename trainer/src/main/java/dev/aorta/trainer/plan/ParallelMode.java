package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.DistributedConfig;
import dev.aorta.trainer.config.FsdpConfig;

/** How parameters and gradients are spread over the ranks: one of the four FSDP strategies, or DDP. */
public enum ParallelMode {
    FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, DDP;

    /** The mode a run uses; with one rank there is nothing to shard, so every FSDP strategy is NO_SHARD (as FSDP). */
    public static ParallelMode of(DistributedConfig distributed, FsdpConfig fsdp, int worldSize) {
        if (distributed.mode() == DistributedConfig.Mode.DDP) {
            return DDP;
        }
        if (worldSize == 1) {
            return NO_SHARD;
        }
        return switch (fsdp.shardingStrategy()) {
            case FULL_SHARD -> FULL_SHARD;
            case SHARD_GRAD_OP -> SHARD_GRAD_OP;
            case NO_SHARD -> NO_SHARD;
            case HYBRID_SHARD -> HYBRID_SHARD;
        };
    }

    /** Whether each rank keeps only a shard of the parameters between steps. */
    public boolean sharded() {
        return this == FULL_SHARD || this == SHARD_GRAD_OP || this == HYBRID_SHARD;
    }

    /** Whether a layer's gathered parameters are freed after its forward and gathered again for its backward. */
    public boolean reshardsAfterForward() {
        return this == FULL_SHARD || this == HYBRID_SHARD;
    }
}
