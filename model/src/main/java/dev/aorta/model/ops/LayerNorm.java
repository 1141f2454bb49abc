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
 * two launches, as torch's, but reads dy and x once: where a row fits in registers (a multiple of 4 columns, at
 * most {@value #MAX_REGISTER_ROW}, 16-byte aligned), dx one warp per row with each block's sums of dγ and dβ
 * beside it, then a small pass that adds the blocks' sums in block order. Other rows: dx, then dγ and dβ over a
 * grid of column tiles by row chunks, the chunks' partial sums added by the last block of each tile in chunk
 * order. Deterministic either way, without float atomics. The partial sums and the tiles' ticket counters are this
 * layer's own scratch, so one layer's backward passes run one at a time (stream order), as a layer's passes do
 * anyway.
 */
public final class LayerNorm implements Layer {
    private static final String OP = "layer norm";
    /** The register-row backward instances by float4 per lane (2, 4, 6, 8): names built once, not per launch. */
    private static final String[] BACKWARD_ROWS = {"layernorm_backward_rows2", "layernorm_backward_rows4",
            "layernorm_backward_rows6", "layernorm_backward_rows8"};
    private static final int ROWS_PER_BLOCK = 4;
    /** The widest row the register-row backward pass holds (layernorm.cu: 32 lanes × MAX_VEC float4). */
    private static final int MAX_REGISTER_ROW = 1024;
    /** Column lanes of a parameter-gradient block (layernorm.cu's param_grad: 8 column lanes by 32 row lanes). */
    private static final int PARAM_COLUMN_LANES = 8;
    private static final int PARAM_ROW_LANES = 32;
    /** The most row chunks of the parameter-gradient grid (layernorm.cu's PARAM_MAX_CHUNKS): the scratch's size. */
    private static final int PARAM_MAX_CHUNKS = 32;
    /** Rows one parameter-gradient block takes at most while the chunks last: 8 per thread, two rounds of loads. */
    private static final int PARAM_ROWS_PER_BLOCK = 256;
    /**
     * The most blocks of the register-row backward pass, so the most block sums its dγ/dβ finish adds: 512 rows
     * (the ranking model's 8 × 64) are one row per warp; more rows loop within the blocks.
     */
    private static final int REGISTER_ROW_MAX_BLOCKS = 128;
    /** Outputs (of dγ then dβ) per block of layernorm_param_grad_finish. */
    private static final int FINISH_OUTPUTS_PER_BLOCK = 32;

    private final OpContext ctx;
    private final int dim;
    private final float eps;
    private final Parameter gamma;
    private final Parameter beta;
    /** The parameter-gradient partial sums, [chunk or register-row block][dγ, dβ][dim]. */
    private final Tensor paramPartials;
    /** One ticket counter per column tile of the parameter-gradient pass, 0 between launches. */
    private final Tensor paramTickets;

    public LayerNorm(OpContext ctx, String name, int dim, float eps) {
        this.ctx = ctx;
        this.dim = dim;
        this.eps = eps;
        this.gamma = ctx.newParameter(OP, name + ".weight", dim);
        this.beta = ctx.newParameter(OP, name + ".bias", dim);
        gamma.init(() -> Init.constant(1f, dim));
        beta.init(() -> Init.constant(0f, dim));
        this.paramPartials = ctx.empty(OP, name + " parameter-gradient partial sums", DType.FP32,
                Math.max(PARAM_MAX_CHUNKS, REGISTER_ROW_MAX_BLOCKS) * 2 * dim);
        // the scalar pass has the narrowest tiles, so the most of them
        int tiles = (dim + PARAM_COLUMN_LANES - 1) / PARAM_COLUMN_LANES;
        this.paramTickets = ctx.empty(OP, name + " parameter-gradient tickets", DType.I32, tiles);
        if (!paramTickets.isMeta()) {
            paramTickets.copyFrom(new int[tiles]);
        }
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
        int rows = checkBackward(x, mean, rstd, dy, dy2, dx);
        if (registerRows(dy, dy2, x, dx)) {
            launchFinish(launchRegisterRows(x, mean, rstd, dy, dy2, dx, rows, paramPartials, s), s);
            return;
        }
        launchRowsFromMemory(x, mean, rstd, dy, dy2, dx, rows, s);
        launchParamGrad(x, mean, rstd, dy, dy2, rows, s);
    }

    /**
     * dx alone, γ's and β's gradients untouched (torch.autograd.grad with respect to the input only: one launch,
     * no column reduction); dy2 as in {@link #backward(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Stream)}.
     */
    public void backwardInput(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, Tensor dx, Stream s) {
        int rows = checkBackward(x, mean, rstd, dy, dy2, dx);
        if (registerRows(dy, dy2, x, dx)) {
            launchRegisterRows(x, mean, rstd, dy, dy2, dx, rows, null, s);
        } else {
            launchRowsFromMemory(x, mean, rstd, dy, dy2, dx, rows, s);
        }
    }

    /**
     * dγ and dβ alone (accumulated), what {@link #backwardInput} left out, from the same x, statistics and dy
     * (dy2 none), when the caller chooses. It reads dy and x again, and sums in the order {@link #backward} does,
     * so that backwardInput then paramGrads give the bits of backward.
     */
    public void paramGrads(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Stream s) {
        int rows = check(x, "dy", dy, mean, rstd);
        if (registerRows(dy, null, x, null)) {
            int blocks = launchRegisterRows(x, mean, rstd, dy, null, null, rows, paramPartials, s);
            launchFinish(blocks, s);
            return;
        }
        launchParamGrad(x, mean, rstd, dy, null, rows, s);
    }

    private int checkBackward(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, Tensor dx) {
        int rows = check(x, "dy", dy, mean, rstd);
        if (dy2 != null) {
            Shapes.requireSame(OP, "dy", dy, "dy2", dy2);
            Shapes.requireDtype(OP, "dy2", dy2, DType.FP32);
            Shapes.requireContiguous(OP, "dy2", dy2);
        }
        Shapes.requireSame(OP, "x", x, "dx", dx);
        Shapes.requireDtype(OP, "dx", dx, DType.FP32);
        Shapes.requireContiguous(OP, "dx", dx);
        return rows;
    }

    /** Whether a row fits the register-row pass: a multiple of 4 columns, at most 1024, 16-byte aligned rows. */
    private boolean registerRows(Tensor dy, Tensor dy2, Tensor x, Tensor dx) {
        return dim % 4 == 0 && dim <= MAX_REGISTER_ROW && aligned16(dy, dy2, x, dx);
    }

    /**
     * dx by the register-row pass (where dx is not null), with each block's dγ/dβ sums into {@code partials} (where
     * not null); returns the number of blocks (rows of partial sums).
     */
    private int launchRegisterRows(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, Tensor dx, int rows,
                                   Tensor partials, Stream s) {
        int blocks = Math.min(ceilDiv(rows, ROWS_PER_BLOCK), REGISTER_ROW_MAX_BLOCKS);
        // layernorm.cu has one instance per 256 columns: 2, 4, 6 or 8 float4 per lane
        int perLane = 2 * ((dim + 255) / 256);
        ctx.kernels().launch("layernorm.cu", BACKWARD_ROWS[perLane / 2 - 1], blocks, 32 * ROWS_PER_BLOCK, s,
                dy, dy2, x, gamma.value(), mean, rstd, dx, rows, dim, partials);
        return blocks;
    }

    /** dγ and dβ += the register-row pass's per-block sums, added in block order. */
    private void launchFinish(int blocks, Stream s) {
        ctx.kernels().launch("layernorm.cu", "layernorm_param_grad_finish", ceilDiv(2 * dim, FINISH_OUTPUTS_PER_BLOCK),
                256, s, paramPartials, blocks, dim, gamma.grad(), beta.grad());
    }

    /** dx one warp per row, reading the row from memory in each pass (any width or alignment). */
    private void launchRowsFromMemory(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, Tensor dx, int rows,
                                      Stream s) {
        ctx.kernels().launch("layernorm.cu", "layernorm_backward", ceilDiv(rows, ROWS_PER_BLOCK),
                32 * ROWS_PER_BLOCK, s, dy, dy2, x, gamma.value(), mean, rstd, dx, rows, dim);
    }

    /**
     * dγ and dβ on a grid of column tiles (32 columns with 16-byte loads, else 8) by row chunks: about one block
     * per SM while rows are few (512 × 768: 24 tiles × 5 chunks of 103 rows), at most 256 rows a block after
     * that, at least 32 rows a chunk (one per row lane), at most {@link #PARAM_MAX_CHUNKS} chunks.
     */
    private void launchParamGrad(Tensor x, Tensor mean, Tensor rstd, Tensor dy, Tensor dy2, int rows, Stream s) {
        boolean vec4 = dim % 4 == 0 && aligned16(dy, dy2, x);
        int tileColumns = PARAM_COLUMN_LANES * (vec4 ? 4 : 1);
        int tiles = (dim + tileColumns - 1) / tileColumns;
        int sms = ctx.device().info().multiprocessors();
        int chunks = Math.max(sms / tiles, ceilDiv(rows, PARAM_ROWS_PER_BLOCK));
        chunks = Math.max(1, Math.min(Math.min(chunks, PARAM_MAX_CHUNKS), ceilDiv(rows, PARAM_ROW_LANES)));
        int rowsPerChunk = Math.max(1, ceilDiv(rows, chunks));
        chunks = Math.max(1, ceilDiv(rows, rowsPerChunk));
        ctx.kernels().launch2d("layernorm.cu", vec4 ? "layernorm_param_grad_vec4" : "layernorm_param_grad", tiles,
                chunks, PARAM_COLUMN_LANES * PARAM_ROW_LANES, s, dy, dy2, x, mean, rstd, gamma.grad(), beta.grad(),
                rows, dim, rowsPerChunk, paramPartials, paramTickets);
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    @Override
    public void close() {
        Layer.super.close();
        paramPartials.close();
        paramTickets.close();
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
        long rowCount = x.numel() / dim;
        if (rowCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape()) + ", "
                    + rowCount + " rows, more than the 2^31 - 1 the kernels index; split it");
        }
        int rows = (int) rowCount;
        Shapes.require(OP, "mean", mean, rows);
        Shapes.require(OP, "rstd", rstd, rows);
        Shapes.requireDtype(OP, "mean", mean, DType.FP32);
        Shapes.requireDtype(OP, "rstd", rstd, DType.FP32);
        return rows;
    }
}
