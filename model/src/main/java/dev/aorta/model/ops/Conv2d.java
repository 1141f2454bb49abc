package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * torch.nn.Conv2d(ci, co, (kh, kw), stride, padding) on NCHW fp32 x [n, ci, h, w] → y [n, co, oh, ow], as an
 * implicit GEMM (the im2col matrix is gathered tile by tile into shared memory, never stored); the weight
 * gradient is the same implicit GEMM, the input gradient a gather over the windows covering each input.
 * fp32 on CUDA cores: no tensor cores yet. Weight [co, ci, kh, kw] and bias [co] start as torch's
 * (uniform ±1/√(ci·kh·kw)).
 */
public final class Conv2d implements Layer {
    private static final String OP = "conv2d";
    private static final int TILE = 16;

    private final OpContext ctx;
    private final int ci;
    private final int co;
    private final int kh;
    private final int kw;
    private final int stride;
    private final int pad;
    private final Parameter weight;
    private final Parameter bias;

    public Conv2d(OpContext ctx, String name, int ci, int co, int kh, int kw, int stride, int pad, boolean withBias,
                  long seed) {
        if (ci < 1 || co < 1 || kh < 1 || kw < 1 || stride < 1 || pad < 0) {
            throw new IllegalArgumentException(OP + ": channels, kernel and stride must be positive and padding"
                    + " non-negative; got ci " + ci + ", co " + co + ", kernel " + kh + "x" + kw + ", stride " + stride
                    + ", padding " + pad);
        }
        this.ctx = ctx;
        this.ci = ci;
        this.co = co;
        this.kh = kh;
        this.kw = kw;
        this.stride = stride;
        this.pad = pad;
        float bound = Init.linearBound(ci * kh * kw);
        this.weight = ctx.newParameter(OP, name + ".weight", co, ci, kh, kw);
        weight.load(Init.uniform(seed, weight.name(), bound, co, ci, kh, kw));
        if (withBias) {
            this.bias = ctx.newParameter(OP, name + ".bias", co);
            bias.load(Init.uniform(seed, bias.name(), bound, co));
        } else {
            this.bias = null;
        }
    }

    @Override
    public List<Parameter> parameters() {
        return bias == null ? List.of(weight) : List.of(weight, bias);
    }

    /** The output shape for input x [n, ci, h, w]. */
    public int[] outputShape(int n, int h, int w) {
        return new int[] {n, co, (h + 2 * pad - kh) / stride + 1, (w + 2 * pad - kw) / stride + 1};
    }

    public void forward(Tensor x, Tensor y, Stream s) {
        Object[] shape = check(x, "y", y);
        long m = (long) y.dim(0) * y.dim(2) * y.dim(3);
        ctx.kernels().launch2d("conv.cu", "conv2d_forward", (co + TILE - 1) / TILE, (int) ((m + TILE - 1) / TILE),
                TILE * TILE, s, concat(new Object[] {x, weight.value(), bias == null ? null : bias.value(), y}, shape));
    }

    /** dx (overwritten; skipped when null), dW and db (accumulated). */
    public void backward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        Object[] shape = check(x, "dy", dy);
        int k = ci * kh * kw;
        ctx.kernels().launch2d("conv.cu", "conv2d_backward_weight", (k + TILE - 1) / TILE, (co + TILE - 1) / TILE,
                TILE * TILE, s, concat(new Object[] {x, dy, weight.grad()}, shape));
        if (bias != null) {
            ctx.kernels().launch("conv.cu", "conv2d_backward_bias", co, 256, s,
                    concat(new Object[] {dy, bias.grad()}, shape));
        }
        if (dx != null) {
            Shapes.requireSame(OP, "x", x, "dx", dx);
            Shapes.requireDtype(OP, "dx", dx, DType.FP32);
            Shapes.requireContiguous(OP, "dx", dx);
            ctx.kernels().launch("conv.cu", "conv2d_backward_input", ctx.kernels().gridFor(x.numel(), 256), 256, s,
                    concat(new Object[] {dy, weight.value(), dx}, shape));
        }
    }

    /** Checks x [n, ci, h, w] and y [n, co, oh, ow]; returns the kernels' eleven shape arguments. */
    private Object[] check(Tensor x, String yName, Tensor y) {
        Shapes.requireRank(OP, "x", x, 4);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        if (x.dim(1) != ci || x.dim(2) + 2 * pad < kh || x.dim(3) + 2 * pad < kw) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape())
                    + ", expected [n, " + ci + ", h, w] with the padded image at least the kernel " + kh + "x" + kw);
        }
        int[] out = outputShape(x.dim(0), x.dim(2), x.dim(3));
        Shapes.require(OP, yName, y, out);
        Shapes.requireDtype(OP, yName, y, DType.FP32);
        Shapes.requireContiguous(OP, yName, y);
        return new Object[] {x.dim(0), ci, x.dim(2), x.dim(3), co, kh, kw, stride, pad, out[2], out[3]};
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] r = new Object[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
