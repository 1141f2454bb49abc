package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * The parameter-free elementwise ops on fp32 tensors of one shape: GELU (exact erf form; its input may also be
 * 16-bit), ReLU, residual add and dropout; and the rounding to 16 bits for autocast GEMM operands. Each checks
 * shapes and dtypes before launching.
 */
public final class Elementwise {
    private final OpContext ctx;

    public Elementwise(OpContext ctx) {
        this.ctx = ctx;
    }

    public void gelu(Tensor x, Tensor y, Stream s) {
        gelu(x, y, null, s);
    }

    /**
     * y = gelu(x), and y rounded into yLow (bf16 or fp16) where not null, for the autocast GEMM that reads y;
     * y may be null where yLow is given and only it is read. x is fp32, or 16 bits (an autocast GEMM's output, as
     * torch's GELU reads addmm's under autocast; then of yLow's dtype where that is given).
     */
    public void gelu(Tensor x, Tensor y, Tensor yLow, Stream s) {
        if (y == null && yLow == null) {
            throw new IllegalArgumentException("gelu: operands y and 16-bit copy are both null, expected at least one");
        }
        boolean xLow = x.dtype() == DType.BF16 || x.dtype() == DType.FP16;
        if (!xLow && x.dtype() != DType.FP32) {
            throw new IllegalArgumentException("gelu: operand x is " + x.dtype() + ", expected fp32, bf16 or fp16");
        }
        if (xLow && yLow != null && yLow.dtype() != x.dtype()) {
            throw new IllegalArgumentException("gelu: operand x is " + x.dtype() + " and its 16-bit copy "
                    + yLow.dtype() + ", expected one 16-bit dtype for both");
        }
        Shapes.requireContiguous("gelu", "x", x);
        if (y != null) {
            Shapes.requireDtype("gelu", "y", y, DType.FP32);
            Shapes.requireSame("gelu", "x", x, "y", y);
            Shapes.requireContiguous("gelu", "y", y);
        }
        if (yLow != null) {
            requireLowCopy("gelu", x, yLow);
        }
        boolean vec4 = x.numel() % 4 == 0 && (x.address() & (xLow ? 7 : 15)) == 0
                && (y == null || (y.address() & 15) == 0) && (yLow == null || (yLow.address() & 7) == 0);
        boolean vec8 = xLow && y == null && yLow != null && x.numel() % 8 == 0 && (x.address() & 15) == 0
                && (yLow.address() & 15) == 0;
        long units = vec8 ? x.numel() / 8 : vec4 ? x.numel() / 4 : x.numel();
        DType low = xLow ? x.dtype() : yLow != null ? yLow.dtype() : null;
        ctx.kernels().launch("elementwise.cu", "gelu_forward", ctx.kernels().gridFor(units, 256), 256, s,
                xLow ? null : x, xLow ? x : null, y, x.numel(), yLow, low == DType.FP16 ? 1 : 0, vec8 ? 2 : vec4 ? 1 : 0);
    }

    /** {@code low} can hold {@code t} rounded: bf16 or fp16, t's shape, contiguous. */
    static void requireLowCopy(String op, Tensor t, Tensor low) {
        Shapes.require(op, "16-bit copy", low, t.shape());
        if (low.dtype() != DType.BF16 && low.dtype() != DType.FP16) {
            throw new IllegalArgumentException(op + ": operand 16-bit copy is " + low.dtype()
                    + ", expected bf16 or fp16");
        }
        Shapes.requireContiguous(op, "16-bit copy", low);
    }

    /** dx = dy·gelu'(x); dx may be dy. */
    public void geluBackward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        same("gelu backward", "x", x, "dy", dy);
        same("gelu backward", "x", x, "dx", dx);
        ctx.kernels().launch("elementwise.cu", "gelu_backward", grid(x), 256, s, x, dy, dx, x.numel());
    }

    /** y = max(x, 0). */
    public void relu(Tensor x, Tensor y, Stream s) {
        same("relu", "x", x, "y", y);
        ctx.kernels().launch("elementwise.cu", "relu_forward", grid(x), 256, s, x, y, x.numel());
    }

    /** dx = dy where x > 0, else 0 (torch's choice at x = 0); dx may be dy. */
    public void reluBackward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        same("relu backward", "x", x, "dy", dy);
        same("relu backward", "x", x, "dx", dx);
        ctx.kernels().launch("elementwise.cu", "relu_backward", grid(x), 256, s, x, dy, dx, x.numel());
    }

    /** y = a + b (y may be a or b). Its backward hands dy to both inputs: see {@link #accumulate}. */
    public void residualAdd(Tensor a, Tensor b, Tensor y, Stream s) {
        same("residual add", "a", a, "b", b);
        same("residual add", "a", a, "y", y);
        ctx.kernels().launch("elementwise.cu", "add", grid(a), 256, s, a, b, y, a.numel());
    }

    /** dst += src: sums a gradient that reaches a tensor by two paths (the skip and the branch of a residual). */
    public void accumulate(Tensor dst, Tensor src, Stream s) {
        same("accumulate", "dst", dst, "src", src);
        ctx.kernels().launch("elementwise.cu", "accumulate", grid(dst), 256, s, dst, src, dst.numel());
    }

    /**
     * Inverted dropout: y = x/(1-p) where the Philox uniform of (seed, offset, i) is ≥ p, else 0. The same call
     * with (dy, dx) and the same seed and offset is its backward; a new offset per step gives a new mask. Under
     * {@link OpContext#philoxBaseFrom} the offset is added to the device-held base.
     */
    public void dropout(Tensor x, Tensor y, float p, long seed, long offset, Stream s) {
        same("dropout", "x", x, "y", y);
        if (!(p >= 0 && p < 1)) {
            throw new IllegalArgumentException("dropout: probability " + p + " outside [0, 1)");
        }
        long blocks = (x.numel() + 3) / 4;
        int grid = ctx.kernels().gridFor(blocks, 256);
        if (ctx.philoxBase() != 0) {
            ctx.kernels().launch("elementwise.cu", "dropout_from_base", grid, 256, s, x, y, x.numel(), p,
                    1 / (1 - p), seed, ctx.philoxBase(), offset);
        } else {
            ctx.kernels().launch("elementwise.cu", "dropout", grid, 256, s, x, y, x.numel(), p, 1 / (1 - p), seed,
                    offset);
        }
    }

    /**
     * y = x rounded to nearest even into y's dtype, bf16 or fp16 (as torch's .to(dtype)): the 16-bit operands
     * of autocast GEMMs. y has x's element count (its shape may differ: scratch is flat).
     */
    public void roundTo16(Tensor x, Tensor y, Stream s) {
        Shapes.requireDtype("round to 16 bits", "x", x, DType.FP32);
        Shapes.requireContiguous("round to 16 bits", "x", x);
        Shapes.requireContiguous("round to 16 bits", "y", y);
        if ((y.dtype() != DType.BF16 && y.dtype() != DType.FP16) || y.numel() < x.numel()) {
            throw new IllegalArgumentException("round to 16 bits: operand y is " + y.dtype() + " "
                    + Shapes.format(y.shape()) + ", expected bf16 or fp16 with at least the " + x.numel()
                    + " elements of x " + Shapes.format(x.shape()));
        }
        ctx.kernels().launch("convert.cu", "cast_f32_to_16", ctx.kernels().gridFor((x.numel() + 3) / 4, 256), 256, s,
                x, y, x.numel(), y.dtype() == DType.FP16 ? 1 : 0);
    }

    private int grid(Tensor t) {
        return ctx.kernels().gridFor(t.numel(), 256);
    }

    private static void same(String op, String nameA, Tensor a, String nameB, Tensor b) {
        Shapes.requireDtype(op, nameA, a, DType.FP32);
        Shapes.requireDtype(op, nameB, b, DType.FP32);
        Shapes.requireSame(op, nameA, a, nameB, b);
        Shapes.requireContiguous(op, nameA, a);
        Shapes.requireContiguous(op, nameB, b);
    }
}
