package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code fsdp}: sharded data parallelism, one flat parameter per transformer layer plus one for the rest of the
 * model (docs/trainer.md, "Sharding plan").
 * <ul>
 *   <li>{@code sharding_strategy}: full_shard (gather before forward and again before backward, free after each),
 *       shard_grad_op (gather before forward, keep until after backward), no_shard (every rank holds everything,
 *       gradients all-reduced), hybrid_shard (full_shard within a node group of {@code hybrid_shard_gpus_per_node}
 *       ranks, gradients then all-reduced across groups). With one rank every strategy is no_shard.</li>
 *   <li>{@code backward_prefetch}: when the next layer's backward gather is issued: BACKWARD_PRE (before this
 *       layer's backward), BACKWARD_POST (after it), none (when the next layer's backward starts).</li>
 *   <li>{@code forward_prefetch}: issue layer i+1's gather before layer i's forward.</li>
 *   <li>{@code limit_all_gathers}: at most two layers' gathers in flight (issued but not yet consumed).</li>
 *   <li>{@code hybrid_shard_gpus_per_node}: ranks per hybrid group; 0 takes the launcher's LOCAL_WORLD_SIZE.</li>
 *   <li>{@code use_orig_params}, {@code sync_module_states}, {@code param_init_device}: accepted so that AORTA's
 *       configurations load; they change nothing here, because parameters are always created from the seed on
 *       every rank (so all ranks start equal without a broadcast) and kept under their original names.</li>
 * </ul>
 */
public record FsdpConfig(ShardingStrategy shardingStrategy, BackwardPrefetch backwardPrefetch, boolean useOrigParams,
                         boolean limitAllGathers, boolean forwardPrefetch, boolean syncModuleStates,
                         ParamInitDevice paramInitDevice, int hybridShardGpusPerNode) {

    public enum ShardingStrategy {
        @JsonProperty("full_shard") FULL_SHARD,
        @JsonProperty("shard_grad_op") SHARD_GRAD_OP,
        @JsonProperty("no_shard") NO_SHARD,
        @JsonProperty("hybrid_shard") HYBRID_SHARD
    }

    public enum BackwardPrefetch {
        @JsonProperty("BACKWARD_PRE") BACKWARD_PRE,
        @JsonProperty("BACKWARD_POST") BACKWARD_POST,
        @JsonProperty("none") NONE
    }

    public enum ParamInitDevice {
        @JsonProperty("cpu") CPU,
        @JsonProperty("cuda") CUDA
    }

    public FsdpConfig {
        require(hybridShardGpusPerNode >= 0, "fsdp.hybrid_shard_gpus_per_node",
                "a whole number of at least 0 (0: the launcher's LOCAL_WORLD_SIZE)");
    }

    static FsdpConfig defaults() {
        return new FsdpConfig(ShardingStrategy.FULL_SHARD, BackwardPrefetch.BACKWARD_PRE, true, true, true, true,
                ParamInitDevice.CPU, 0);
    }
}
