package dev.aorta.model.ops;

import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

/**
 * Memory for the 16-bit copy of dy that a {@link Linear}'s autocast backward pass rounds its output gradient into
 * and its two GEMMs read. The copy is dead once that backward call's GEMMs are queued, so linear layers whose
 * backward passes run one after another on one stream can share one (llm.c's layout): a model then holds one copy
 * sized for its widest layer instead of one per layer (at the stress shape, 12 encoder layers: 864 MiB to 32 MiB).
 * Allocated on first use in the autocast dtype then in force, with room for at least {@code capacity} elements
 * (a model passes its widest layer's, so that the memory is allocated once), and again when that dtype changes or
 * a larger copy is asked for.
 */
public final class LowDyScratch implements AutoCloseable {
    private static final String OP = "linear";

    private final OpContext ctx;
    private final long capacity;
    private Tensor tensor;

    /** Memory for copies of up to {@code capacity} elements (more is allocated when asked for). */
    public LowDyScratch(OpContext ctx, long capacity) {
        this.ctx = ctx;
        this.capacity = capacity;
        if (ctx.isMeta() && ctx.autocast() != null && capacity > 0) {
            get(ctx.autocast(), capacity); // counted where the first backward pass would allocate it on a device
        }
    }

    /** {@code numel} elements of dtype {@code t}, contiguous; the contents are those the last user left. */
    Tensor get(DType t, long numel) {
        if (tensor == null || tensor.dtype() != t || tensor.numel() < numel) {
            close();
            tensor = ctx.empty(OP, "16-bit dy", t, Math.toIntExact(Math.max(numel, capacity)));
        }
        return tensor.numel() == numel ? tensor : tensor.slice(0, 0, Math.toIntExact(numel));
    }

    @Override
    public void close() {
        if (tensor != null) {
            tensor.close();
            tensor = null;
        }
    }
}
