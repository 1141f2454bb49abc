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
 * row's mean and 1/std (fp32, [rows]) for the backward pass instead of recomputing them. The backward pass is
 * two launches, as torch's: dx one warp per row, then dγ and dβ by 8-column tiles summed in a fixed order
 * (deterministic, no atomics, no scratch).
 */
public final class LayerNorm implements Layer {
    private static final String OP = "layer norm";
    private static final int ROWS_PER_BLOCK = 4;
    /** The widest row the register-row backward pass holds (layernorm.cu: 32 lanes × MAX_VEC float4). */
    private static final int MAX_REGISTER_ROW = 1024;
    /** Columns of one block of the parameter-gradient pass (layernorm.cu's layernorm_param_grad). */
    private static final int PARAM_COLUMNS_PER_BLOCK = 8;

    private final OpContext ctx;
    private final int dim;
    private final float eps;
    private final Parameter gamma;
    private final Parameter beta;

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
        int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
        if (dim % 4 == 0 && dim <= MAX_REGISTER_ROW && aligned16(dy, dy2, x, dx)) {
            // layernorm.cu has one instance per 256 columns: 2, 4, 6 or 8 float4 per lane
            int perLane = 2 * ((dim + 255) / 256);
            ctx.kernels().launch("layernorm.cu", "layernorm_backward_rows" + perLane, blocks, 32 * ROWS_PER_BLOCK, s,
                    dy, dy2, x, gamma.value(), mean, rstd, dx, rows, dim);
        } else {
            ctx.kernels().launch("layernorm.cu", "layernorm_backward", blocks, 32 * ROWS_PER_BLOCK, s, dy, dy2, x,
                    gamma.value(), mean, rstd, dx, rows, dim);
        }
        ctx.kernels().launch("layernorm.cu", "layernorm_param_grad",
                (dim + PARAM_COLUMNS_PER_BLOCK - 1) / PARAM_COLUMNS_PER_BLOCK, 256, s, dy, dy2, x, mean, rstd,
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
