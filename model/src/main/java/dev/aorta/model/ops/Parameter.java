package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

/**
 * A trainable tensor (fp32 master weights) and its gradient, under the name it has in parameter files, and
 * the 16-bit copy of the value that autocast GEMMs read ({@link #lowCopy}). The copy is made once and then
 * kept current by whoever changes the value: {@link #load} marks it stale, {@link AdamW} rewrites it in the
 * same pass that updates the value. Code that writes {@link #value()} any other way calls
 * {@link #valueChanged()}.
 */
public record Parameter(String name, Tensor value, Tensor grad, LowCopy low) implements AutoCloseable {

    public Parameter(String name, Tensor value, Tensor grad) {
        this(name, value, grad, new LowCopy());
    }

    /** Loads {@code values} (which must match dtype and shape) into the parameter. */
    public void load(HostTensor values) {
        value.copyFrom(values);
        valueChanged();
    }

    /**
     * The initial value: {@code values} loaded as by {@link #load}, or, for a parameter of meta tensors (an
     * {@link OpContext#meta} context's, which only counts what the layers allocate), nothing, not even the host
     * values.
     */
    public void init(java.util.function.Supplier<HostTensor> values) {
        if (!value.isMeta()) {
            load(values.get());
        }
    }

    /** The value was written other than through {@link #load} or AdamW: the 16-bit copy is re-cast on next use. */
    public void valueChanged() {
        low.current = false;
    }

    /**
     * The value rounded to {@code dtype} (bf16 or fp16), cast on {@code s} only when the copy is missing, of
     * another dtype or stale.
     */
    public Tensor lowCopy(OpContext ctx, DType dtype, Stream s) {
        if (low.tensor == null || low.tensor.dtype() != dtype) {
            if (low.tensor != null) {
                low.tensor.close();
            }
            low.tensor = ctx.empty("parameter", name + " " + dtype + " copy", dtype, value.shape());
            low.current = false;
        }
        if (!low.current) {
            new Elementwise(ctx).roundTo16(value, low.tensor, s);
            low.current = true;
        }
        return low.tensor;
    }

    @Override
    public void close() {
        value.close();
        grad.close();
        if (low.tensor != null) {
            low.tensor.close();
            low.tensor = null;
        }
    }

    /**
     * The 16-bit copy of a parameter's value and whether it still equals the rounded value (mutable state
     * shared by the parameter and the optimizer that keeps it current).
     */
    public static final class LowCopy {
        private Tensor tensor;
        private boolean current;

        /** The copy, or null when none was made. */
        public Tensor tensor() {
            return tensor;
        }

        /** Written by the optimizer in the same pass as the value: current again. */
        void rewritten() {
            current = true;
        }
    }
}
