package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code distributed}: {@code mode} fsdp (the {@code fsdp} section) or ddp (every rank holds everything;
 * gradients all-reduced in buckets of {@code bucket_cap_mb}, filled in the order gradients become ready).
 * {@code static_graph} is accepted for AORTA's configurations and changes nothing: our step is always static.
 * Ours: {@code collective_streams} dedicated (collectives on their own streams, overlapping compute) or compute
 * (every collective on the compute stream: the no-overlap baseline); {@code stream_priorities}.
 */
public record DistributedConfig(Mode mode, int bucketCapMb, boolean staticGraph, CollectiveStreams collectiveStreams,
                                StreamPriorities streamPriorities) {
    public enum Mode {
        @JsonProperty("fsdp") FSDP,
        @JsonProperty("ddp") DDP
    }

    public enum CollectiveStreams {
        @JsonProperty("dedicated") DEDICATED,
        @JsonProperty("compute") COMPUTE
    }

    public DistributedConfig {
        require(bucketCapMb >= 1, "distributed.bucket_cap_mb", "a whole number of MiB, at least 1");
    }

    static DistributedConfig defaults() {
        return new DistributedConfig(Mode.FSDP, 25, false, CollectiveStreams.DEDICATED, StreamPriorities.defaults());
    }
}
