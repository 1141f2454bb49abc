package dev.aorta.trainer.step;

/**
 * The flat fp32 buffers a rank keeps per sharding unit. With shard groups of one rank (no_shard, ddp, one rank, or
 * hybrid_shard with one GPU per node) the shard is the whole unit and the shard arenas are not used: the rank's
 * shard then lives in {@link #PARAMS} and {@link #GRADS} themselves.
 */
public enum Arena {
    /** The unit's parameters, all of them (gathered from the shards before use); the model's values view them. */
    PARAMS,
    /** The unit's local gradients, all of them; the model's gradients view them. */
    GRADS,
    /** The rank's fp32 master shard: what the optimizer updates and the all-gathers send. */
    SHARD_PARAMS,
    /** The rank's shard of the reduced gradient: what the reduce-scatters receive and the optimizer reads. */
    SHARD_GRADS,
    /** One element: the gradient norm, or a shard's sum of squares before its all-reduce. */
    GRAD_NORM
}
