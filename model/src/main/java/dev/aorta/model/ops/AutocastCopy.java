package dev.aorta.model.ops;

import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

/**
 * Memory for the 16-bit copy of one activation under autocast: the op that produces the activation (a layer
 * norm) writes its rounded copy here too, and the linear layer that reads it next uses it instead of casting.
 * Allocated on first use in the autocast dtype then in force (again if that changes); without autocast there
 * is no copy.
 */
public final class AutocastCopy implements AutoCloseable {
    private final OpContext ctx;
    private final String what;
    private final int[] shape;
    private Tensor tensor;

    public AutocastCopy(OpContext ctx, String what, int... shape) {
        this.ctx = ctx;
        this.what = what;
        this.shape = shape.clone();
        if (ctx.isMeta()) {
            get(); // counted where a device would allocate it on first use (a meta context runs no pass)
        }
    }

    /** The copy's tensor in the current autocast dtype, or null when autocast is off. */
    public Tensor get() {
        DType t = ctx.autocast();
        if (t == null) {
            return null;
        }
        if (tensor == null || tensor.dtype() != t) {
            close();
            tensor = ctx.empty("autocast", what + " " + t + " copy", t, shape);
        }
        return tensor;
    }

    @Override
    public void close() {
        if (tensor != null) {
            tensor.close();
            tensor = null;
        }
    }
}
