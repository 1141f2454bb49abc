package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * torch.nn.LayerNorm over the last dimension (weight γ = 1, bias β = 0 initially). The forward pass keeps each
 * row's mean and 1/std (fp32, [rows]) for the backward pass instead of recomputing them. The backward pass of
 * rows up to 1024 wide (a multiple of 4) keeps a scratch of per-block parameter-gradient sums, this object's
 * (one backward call in flight per instance), given back by {@link #close}.
 */
public final class LayerNorm implements Layer {
    private static final String OP = "layer norm";
    private static final int ROWS_PER_BLOCK = 4;
    /** The widest row the register-row backward pass holds (layernorm.cu: 32 lanes × MAX_VEC float4). */
    private static final int MAX_REGISTER_ROW = 1024;
    /**
     * Blocks of the register-row backward pass at most: a constant, not a multiple of the device's SMs, so that
     * the parameter gradients' summation order, and so their bits, do not depend on the GPU.
     */
    private static final int MAX_PARTIAL_BLOCKS = 128;

    private final OpContext ctx;
    private final int dim;
    private final float eps;
    private final Parameter gamma;
    private final Parameter beta;
    private Tensor partials;

    public LayerNorm(OpContext ctx, String name, int dim, float eps) {
        this.ctx = ctx;
        this.dim = dim;
        this.eps = eps;
        this.gamma = ctx.newParameter(OP, name + ".weight", dim);
        this.beta = ctx.newParameter(OP, name + ".bias", dim);
        gamma.load(Init.constant(1f, dim));
        beta.load(Init.constant(0f, dim));
    }

    @Override
    public List<Parameter> parameters() {
        return List.of(gamma, beta);
    }

    /** y = (x - mean)·rstd·γ + β; mean and rstd [rows] are written for {@link #backward}. */
    public void forward(Tensor x, Tensor y, Tensor mean, Tensor rstd, Stream s) {
        forward(x, y, null, mean, rstd, s);
    }

    /** As {@link #forward(Tensor, Tensor, Tensor, Tensor, Stream)}, also writing y rounded into yLow (bf16 or fp16) where not null. */
    public void forward(Tensor x, Tensor y, Tensor yLow, Tensor mean, Tensor rstd, Stream s) {
        int rows = check(x, "y", y, mean, rstd);
        launchForward(x, null, null, y, yLow, mean, rstd, rows, s);
    }

    /**
     * The residual add of a post-norm block fused into the norm: sum = x + residual (kept: the backward pass
     * normalises it again), y = layer norm of sum, and y rounded into yLow (bf16 or fp16) where not null, for
     * the autocast GEMM that reads y next; one launch instead of two or three.
     */
    public void forwardResidual(Tensor x, Tensor residual, Tensor sum, Tensor y, Tensor yLow, Tensor mean,
                                Tensor rstd, Stream s) {
        int rows = check(x, "y", y, mean, rstd);
        for (String name : new String[] {"residual", "sum"}) {
            Tensor t = name.equals("sum") ? sum : residual;
            Shapes.requireSame(OP, "x", x, name, t);
            Shapes.requireDtype(OP, name, t, DType.FP32);
            Shapes.requireContiguous(OP, name, t);
        }
        launchForward(x, residual, sum, y, yLow, mean, rstd, rows, s);
    }

    private void launchForward(Tensor x, Tensor residual, Tensor sum, Tensor y, Tensor yLow, Tensor mean,
                               Tensor rstd, int rows, Stream s) {
        if (yLow != null) {
            Elementwise.requireLowCopy(OP, y, yLow);
        }
        ctx.kernels().launch("layernorm.cu", "layernorm_forward", (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK,
                32 * ROWS_PER_BLOCK, s, x, residual, sum, gamma.value(), beta.value(), y, mean, rstd, rows, dim, eps,
                yLow, yLow != null && yLow.dtype() == DType.FP16 ? 1 : 0);
    }

    /** dx is overwritten; dγ and dβ accumulate. */
    public void backward(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dx, Stream s) {
        backward(x, mean, rstd, dy, null, dx, s);
    }

    /**
     * As {@link #backward(Tensor, Tensor, Tensor, Tensor, Tensor, Stream)} for an output whose gradient arrives
     * by two paths (a residual branch): dy + dy2 is summed as it is read, with no separate accumulate launch.
     * dy2 may be null.
     */
    public void backward(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, Tensor dx, Stream s) {
        int rows = check(x, "dy", dy, mean, rstd);
        if (dy2 != null) {
            Shapes.requireSame(OP, "dy", dy, "dy2", dy2);
            Shapes.requireDtype(OP, "dy2", dy2, DType.FP32);
            Shapes.requireContiguous(OP, "dy2", dy2);
        }
        Shapes.requireSame(OP, "x", x, "dx", dx);
        Shapes.requireDtype(OP, "dx", dx, DType.FP32);
        Shapes.requireContiguous(OP, "dx", dx);
        if (dim % 4 == 0 && dim <= MAX_REGISTER_ROW && aligned16(dy, dy2, x, dx)) {
            int blocks = Math.min((rows + 7) / 8, MAX_PARTIAL_BLOCKS);
            partials = ensurePartials(blocks);
            // layernorm.cu has one instance per 256 columns: 2, 4, 6 or 8 float4 per lane
            int perLane = 2 * ((dim + 255) / 256);
            ctx.kernels().launch("layernorm.cu", "layernorm_backward_rows" + perLane, blocks, 256, s, dy, dy2, x,
                    gamma.value(), mean, rstd, dx, partials, rows, dim);
            ctx.kernels().launch("layernorm.cu", "layernorm_param_reduce", (2 * dim + 31) / 32, 256, s, partials,
                    blocks, gamma.grad(), beta.grad(), dim);
            return;
        }
        ctx.kernels().launch("layernorm.cu", "layernorm_backward", (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK,
                32 * ROWS_PER_BLOCK, s, dy, dy2, x, gamma.value(), mean, rstd, dx, rows, dim);
        ctx.kernels().launch("layernorm.cu", "layernorm_param_grad", (dim + 31) / 32, 1024, s, dy, dy2, x, mean, rstd,
                gamma.grad(), beta.grad(), rows, dim);
    }

    private static boolean aligned16(Tensor... ts) {
        for (Tensor t : ts) {
            if (t != null && (t.address() & 15) != 0) {
                return false;
            }
        }
        return true;
    }

    /** The per-block parameter-gradient sums of the register-row backward pass, grown on demand. */
    private Tensor ensurePartials(int blocks) {
        if (partials != null && partials.numel() >= 2L * blocks * dim) {
            return partials;
        }
        if (partials != null) {
            partials.close();
        }
        return ctx.empty(OP, "parameter gradient partial sums", DType.FP32, blocks, 2, dim);
    }

    @Override
    public void close() {
        if (partials != null) {
            partials.close();
        }
        Layer.super.close();
    }

    private int check(Tensor x, String yName, Tensor y, Tensor mean, Tensor rstd) {
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        if (x.rank() < 1 || x.dim(-1) != dim) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape())
                    + ", expected [..., " + dim + "] (normalized_shape " + dim + ")");
        }
        Shapes.requireSame(OP, "x", x, yName, y);
        Shapes.requireDtype(OP, yName, y, DType.FP32);
        Shapes.requireContiguous(OP, yName, y);
        int rows = (int) (x.numel() / dim);
        Shapes.require(OP, "mean", mean, rows);
        Shapes.require(OP, "rstd", rstd, rows);
        Shapes.requireDtype(OP, "mean", mean, DType.FP32);
        Shapes.requireDtype(OP, "rstd", rstd, DType.FP32);
        return rows;
    }
}
