package dev.aorta.trainer.plan;

/**
 * One collective a rank takes part in: its kind, the group it runs over, and the bytes this rank contributes and
 * ends up with (fp32).
 */
public record Collective(Kind kind, Group group, long sendBytes, long receiveBytes) {
    public enum Kind { ALL_GATHER, REDUCE_SCATTER, ALL_REDUCE }

    /** SHARD: the ranks that split one copy of the parameters; REPLICA: the ranks that hold the same shard. */
    public enum Group { SHARD, REPLICA }
}
