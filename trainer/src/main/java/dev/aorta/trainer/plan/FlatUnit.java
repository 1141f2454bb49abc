package dev.aorta.trainer.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * The parameters of one sharding unit laid end to end in one flat fp32 buffer: each parameter starts at a multiple
 * of {@link #ALIGN_ELEMENTS} (so that every view into the buffer is aligned as a separately allocated tensor's
 * operand is expected to be, see there), and the buffer is padded
 * to a multiple of {@code groupSize · ALIGN_ELEMENTS} so that it splits into {@code groupSize} equal, aligned
 * shards. Shard g (the rank with index g in its shard group) owns elements [g·shard, (g+1)·shard).
 *
 * @param layer the encoder layer, or -1 for the root unit (stem and head, which FSDP's root wraps)
 */
public record FlatUnit(String name, int layer, List<Slot> slots, long paddedNumel, long shardNumel) {
    /**
     * 256 bytes of fp32: cuBLASLt's heuristics assume operands aligned to 256 bytes unless told otherwise
     * (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES), and the model's GEMMs read and write parameters and their
     * gradients in place; the vectorised kernels need 16.
     */
    public static final int ALIGN_ELEMENTS = 64;

    /** A parameter's place in the flat buffer. */
    public record Slot(ParameterSpec param, long offset) {
        public ElementRange range() {
            return new ElementRange(offset, offset + param.numel());
        }
    }

    public FlatUnit {
        slots = List.copyOf(slots);
    }

    static FlatUnit layout(String name, int layer, List<ParameterSpec> params, int groupSize) {
        List<Slot> slots = new ArrayList<>();
        long at = 0;
        for (ParameterSpec p : params) {
            at = roundUp(at, ALIGN_ELEMENTS);
            slots.add(new Slot(p, at));
            at += p.numel();
        }
        long padded = roundUp(at, (long) groupSize * ALIGN_ELEMENTS);
        return new FlatUnit(name, layer, slots, padded, padded / groupSize);
    }

    private static long roundUp(long n, long multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }

    public boolean isRoot() {
        return layer < 0;
    }

    /** The elements owned by the rank with index {@code groupRank} in its shard group. */
    public ElementRange shard(int groupRank) {
        return new ElementRange(groupRank * shardNumel, (groupRank + 1) * shardNumel);
    }

    /** Elements that hold parameter values (not alignment gaps or padding). */
    public long parameterNumel() {
        return slots.stream().mapToLong(s -> s.param().numel()).sum();
    }

    public long paddedBytes() {
        return paddedNumel * Float.BYTES;
    }

    public long shardBytes() {
        return shardNumel * Float.BYTES;
    }
}
