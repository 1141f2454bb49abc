package dev.aorta.model.ops;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.CublasLt;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * y = x·Wᵀ + b (torch.nn.Linear: W [out, in], b [out]) over x [..., in], optionally followed by GELU. fp32
 * forward GEMMs with a bias run through cuBLASLt with the bias in the epilogue, as torch's addmm (GELU then reads
 * the pre-activation the GEMM wrote); where cuBLASLt has no algorithm, and for the backward GEMMs, cuBLAS, the bias
 * (and GELU) then in one pass after the GEMM. No TF32 anywhere, so results stay within fp32 rounding of the
 * reference.
 *
 * <p>Under autocast ({@link OpContext#autocast()} bf16 or fp16) the GEMMs run through cuBLASLt on 16-bit
 * copies of W, x and dy with fp32 accumulation, the bias added in the GEMM's epilogue. y is fp32 or, where the
 * caller hands a 16-bit y (the encoder layer's in-projection, whose output only becomes 16-bit q, k, v), rounded
 * to 16 bits as torch's; dx and dW are fp32 and dW accumulates in fp32. The GELU stays the erf
 * form in our own pass, because cuBLASLt's GELU epilogue is the tanh approximation. With GELU the
 * pre-activation may be 16-bit, as torch's is (addmm's output under autocast, which GELU's backward pass reads
 * again): the GEMM then writes it in 16 bits with the bias's 16-bit copy in the epilogue, torch's arithmetic
 * (fp32 accumulation, acc + bias rounded once), and keeps half the memory. W's copy is the
 * parameter's ({@link Parameter#lowCopy}: cast once, then rewritten by AdamW); x's is handed over by the op
 * that produced x (a layer norm writes it beside its output) or cast in the forward pass, and reused by the
 * backward pass, which must get the same, unchanged x (as the layer's saved activations are); dy is rounded
 * in the pass that also applies GELU's derivative and sums the bias gradient. The x copy the layer casts itself
 * lives in scratch owned by this layer (one call in flight per layer); the dy copy in a {@link LowDyScratch},
 * this layer's own or one shared with the other linear layers of a model.
 */
public final class Linear implements Layer {
    private static final String OP = "linear";

    private final OpContext ctx;
    private final Elementwise ew;
    private final int in;
    private final int out;
    private final Parameter weight;
    private final Parameter bias;
    /** This layer's memory for x's 16-bit copy, where no op hands one over. */
    private Tensor lowXScratch;
    /** x's 16-bit copy that the last forward pass used (the scratch or one handed over), or null. */
    private Tensor lowX;
    /** The x that {@link #lowX} is the copy of ({@link Tensor#sameElementsAs} decides), or null. */
    private Tensor lowXSource;
    private final LowDyScratch lowDy;
    /** Whether {@link #lowDy} is this layer's own (closed with it) rather than shared. */
    private final boolean ownsLowDy;

    /** With PyTorch's default initialisation, deterministic from {@code seed} and the parameter names. */
    public Linear(OpContext ctx, String name, int in, int out, boolean withBias, long seed) {
        this(ctx, name + ".weight", withBias ? name + ".bias" : null, in, out, seed);
    }

    /** With explicit parameter names (PyTorch's "self_attn.in_proj_weight"); no bias where biasName is null. */
    public Linear(OpContext ctx, String weightName, String biasName, int in, int out, long seed) {
        this(ctx, weightName, biasName, in, out, seed, null);
    }

    /** As {@link #Linear(OpContext, String, String, int, int, long)}, sharing the 16-bit dy copy's memory. */
    public Linear(OpContext ctx, String name, int in, int out, boolean withBias, long seed, LowDyScratch sharedDy) {
        this(ctx, name + ".weight", withBias ? name + ".bias" : null, in, out, seed, sharedDy);
    }

    /**
     * As {@link #Linear(OpContext, String, String, int, int, long)}; the autocast backward pass rounds dy into
     * {@code sharedDy} (a model's, shared by linear layers whose backward passes run one after another on one
     * stream), or into memory of its own where it is null.
     */
    public Linear(OpContext ctx, String weightName, String biasName, int in, int out, long seed,
                  LowDyScratch sharedDy) {
        this.ctx = ctx;
        this.ownsLowDy = sharedDy == null;
        this.lowDy = sharedDy != null ? sharedDy : new LowDyScratch(ctx, 0);
        this.ew = new Elementwise(ctx);
        this.in = in;
        this.out = out;
        this.weight = ctx.newParameter(OP, weightName, out, in);
        weight.init(() -> Init.uniform(seed, weightName, Init.linearBound(in), out, in));
        if (biasName != null) {
            this.bias = ctx.newParameter(OP, biasName, out);
            bias.init(() -> Init.uniform(seed, biasName, Init.linearBound(in), out));
        } else {
            this.bias = null;
        }
    }

    public Parameter weight() {
        return weight;
    }

    public Parameter bias() {
        return bias;
    }

    @Override
    public List<Parameter> parameters() {
        return bias == null ? List.of(weight) : List.of(weight, bias);
    }

    /** y = x·Wᵀ + b. */
    public void forward(Tensor x, Tensor y, Stream s) {
        forward(x, null, y, s);
    }

    /**
     * y = x·Wᵀ + b, where under autocast {@code xLow} (when not null) already holds x rounded to the autocast
     * dtype, written by the op that produced x: no cast launch. It must stay unchanged until the backward pass,
     * which reads it again. Under autocast y may be of the autocast dtype (torch's addmm output: the bias's
     * 16-bit copy in the epilogue, acc + bias rounded once), else it is fp32.
     */
    public void forward(Tensor x, Tensor xLow, Tensor y, Stream s) {
        int rows = checkOutput(x, "y", y);
        if (ctx.autocast() != null) {
            lowGemmForward(x, xLow, y, rows, s);
            return;
        }
        if (biasGemmForward(x, y, rows, s)) {
            return;
        }
        gemmForward(x, y, rows, s);
        if (bias != null) {
            ctx.kernels().launch("elementwise.cu", "bias_act_forward", ctx.kernels().gridFor(y.numel(), 256), 256, s,
                    y, bias.value(), null, y.numel(), out, 0);
        }
    }

    /**
     * y = x·Wᵀ + b + residual (residual may be null, or y itself) for inference: in fp32 one cuBLASLt launch, the
     * bias in its epilogue and the residual as its C operand (beta 1), where eager {@link #forward} and a residual
     * add take three (GEMM, bias pass, add); launch-bound decoders (continuous_batch) need the two passes gone.
     * Where cuBLASLt has no algorithm: cuBLAS's GEMM and the bias pass (and the add unless the residual is y).
     */
    public void forwardPlus(Tensor x, Tensor residual, Tensor y, Stream s) {
        if (ctx.autocast() != null) {
            throw new IllegalStateException(OP + ": forwardPlus is fp32 only; under autocast use forward");
        }
        int rows = check(x, "y", y);
        boolean inPlace = residual != null && residual.sameElementsAs(y);
        if (residual != null) {
            Shapes.requireSame(OP, "residual", residual, "y", y);
            Shapes.requireContiguous(OP, "residual", residual);
        }
        if (ctx.blasLt().matmul(s, GemmPrecision.FP32, GemmPrecision.FP32, true, false, out, rows, in, 1f,
                weight.value().address(), in, x.address(), in, residual == null ? 0f : 1f,
                residual == null ? y.address() : residual.address(), y.address(), out,
                bias == null ? CublasLt.Epilogue.DEFAULT : CublasLt.Epilogue.BIAS,
                bias == null ? 0 : bias.value().address(), 0, 0)) {
            return;
        }
        ctx.blasOn(s).gemm(GemmPrecision.FP32, true, false, out, rows, in, 1f, weight.value().address(), in,
                x.address(), in, inPlace ? 1f : 0f, y.address(), out);
        if (bias != null) {
            ctx.kernels().launch("elementwise.cu", "bias_act_forward", ctx.kernels().gridFor(y.numel(), 256), 256, s,
                    y, bias.value(), null, y.numel(), out, 0);
        }
        if (residual != null && !inPlace) {
            ew.residualAdd(residual, y, y, s);
        }
    }

    /**
     * pre = x·Wᵀ + b (kept for the backward pass), y = gelu(pre). Under autocast pre may be of the autocast
     * dtype (torch's; see the class comment), else it is fp32.
     */
    public void forwardGelu(Tensor x, Tensor pre, Tensor y, Stream s) {
        forwardGelu(x, null, pre, y, s);
    }

    /**
     * As {@link #forwardGelu(Tensor, Tensor, Tensor, Stream)} with x's 16-bit copy as in
     * {@link #forward(Tensor, Tensor, Tensor, Stream)}.
     */
    public void forwardGelu(Tensor x, Tensor xLow, Tensor pre, Tensor y, Stream s) {
        forwardGelu(x, xLow, pre, y, null, s);
    }

    /**
     * As {@link #forwardGelu(Tensor, Tensor, Tensor, Tensor, Stream)}; under autocast, y rounded is also written
     * into yLow where not null (for the next layer's GEMM: hand it over as that layer's xLow, unless something,
     * such as dropout, changes y first). Under autocast y may be null when yLow is given: the next layer's GEMMs,
     * forward and backward, read only the 16-bit copy, and the fp32 y would be written for nothing.
     */
    public void forwardGelu(Tensor x, Tensor xLow, Tensor pre, Tensor y, Tensor yLow, Stream s) {
        if (y == null && (ctx.autocast() == null || yLow == null)) {
            throw new IllegalArgumentException(OP + ": operand y is null, expected a tensor (only under autocast with"
                    + " a 16-bit copy of y may it be left out)");
        }
        int rows = checkOutput(x, "pre", pre);
        if (y != null) {
            Shapes.requireSame(OP, "pre", pre, "y", y);
            Shapes.requireDtype(OP, "y", y, DType.FP32);
            Shapes.requireContiguous(OP, "y", y);
        }
        if (ctx.autocast() != null) {
            // the bias is in the GEMM's epilogue, which writes pre itself: one read of pre and one write of y
            lowGemmForward(x, xLow, pre, rows, s);
            ew.gelu(pre, y, yLow, s);
            return;
        }
        if (biasGemmForward(x, pre, rows, s)) {
            // pre written with its bias by the GEMM, as torch's addmm: one read of pre and one write of y
            ew.gelu(pre, y, null, s);
            return;
        }
        gemmForward(x, y, rows, s);
        ctx.kernels().launch("elementwise.cu", "bias_act_forward", ctx.kernels().gridFor(y.numel(), 256), 256, s,
                y, bias == null ? null : bias.value(), pre, y.numel(), out, 1);
    }

    /** dx = dy·W (skipped when dx is null), dW += dyᵀ·x, db += Σ dy. */
    public void backward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        backward(x, dy, dx, false, s);
    }

    /**
     * As {@link #backward(Tensor, Tensor, Tensor, Stream)}; with {@code accumulateDx} dx += dy·W instead of
     * dx = dy·W (x also reaches the loss by another path, a residual branch, whose gradient dx holds already:
     * the GEMM adds to it, so no separate accumulate launch).
     */
    public void backward(Tensor x, Tensor dy, Tensor dx, boolean accumulateDx, Stream s) {
        int rows = check(x, "dy", dy);
        backwardFrom(x, null, dy, dx, accumulateDx, true, rows, s);
    }

    /**
     * The backward pass of {@link #forwardGelu}: dy (the gradient of y) may be overwritten with the gradient of
     * pre (the fp32 path does so in place; under autocast it goes straight into the 16-bit copy).
     */
    public void backwardGelu(Tensor x, Tensor pre, Tensor dy, Tensor dx, Stream s) {
        int rows = check(x, "dy", dy);
        checkOutput(x, "pre", pre);
        backwardFrom(x, pre, dy, dx, false, true, rows, s);
    }

    /**
     * dx = dy·W alone (torch.autograd.grad with respect to the input only): dW and db untouched, so neither their
     * GEMM nor the bias-gradient pass runs; x is not read (it is not needed), dx fixes the shapes.
     */
    public void backwardInput(Tensor dy, Tensor dx, Stream s) {
        int rows = check(dx, "dy", dy);
        backwardFrom(null, null, dy, dx, false, false, rows, s);
    }

    /**
     * The input-only form of {@link #backwardGelu}: dy becomes the gradient of pre (in place on the fp32 path),
     * then dx = dy·W; dW and db untouched.
     */
    public void backwardGeluInput(Tensor pre, Tensor dy, Tensor dx, Stream s) {
        int rows = check(dx, "dy", dy);
        checkOutput(dx, "pre", pre);
        backwardFrom(null, pre, dy, dx, false, false, rows, s);
    }

    /**
     * dW += dyᵀ·x and db += Σ dy, what {@link #backwardInput} and {@link #backwardGeluInput} left out, when the
     * caller chooses (after the input gradient has gone on, off its critical path); dy is what that pass left (for
     * a GELU layer the gradient of pre) and must be unchanged since. fp32 only: under autocast the 16-bit copy of
     * dy that the GEMM would read is scratch that later passes reuse.
     */
    public void paramGrads(Tensor x, Tensor dy, Stream s) {
        if (ctx.autocast() != null) {
            throw new IllegalStateException(OP + ": paramGrads runs fp32 GEMMs, but autocast " + ctx.autocast()
                    + " is on; use backward, which computes the parameter gradients with the input gradient");
        }
        int rows = check(x, "dy", dy);
        if (bias != null) {
            prepareDy(dy, null, null, null, null, true, rows, s);
        }
        gemmBackward(x, dy, null, 0f, true, rows, s);
    }

    /**
     * One pass over dy before the GEMMs (GELU's derivative where pre is given, the bias gradient, and under
     * autocast the rounding to 16 bits), then dx and, with {@code paramGrads}, dW (and db in that pass).
     */
    private void backwardFrom(Tensor x, Tensor pre, Tensor dy, Tensor dx, boolean accumulateDx, boolean paramGrads,
                              int rows, Stream s) {
        if (dx != null && x != null) {
            Shapes.requireSame(OP, "x", x, "dx", dx);
        }
        if (dx != null) {
            Shapes.requireDtype(OP, "dx", dx, DType.FP32);
            Shapes.requireContiguous(OP, "dx", dx);
        }
        float beta = accumulateDx ? 1f : 0f;
        DType t = ctx.autocast();
        if (t != null) {
            Tensor dyLow = lowDy.get(t, dy.numel());
            prepareDy(dy, pre, null, dyLow, t, paramGrads, rows, s);
            lowGemmBackward(x, dyLow, dx, beta, paramGrads, rows, s);
            return;
        }
        if (pre != null || bias != null && paramGrads) {
            prepareDy(dy, pre, pre != null ? dy : null, null, null, paramGrads, rows, s);
        }
        gemmBackward(x, dy, dx, beta, paramGrads, rows, s);
    }

    /**
     * The fused pass over dy of elementwise.cu's bias_grad (see there); pre (fp32, or 16-bit of the autocast
     * dtype t), dpre and low may be null.
     */
    private void prepareDy(Tensor dy, Tensor pre, Tensor dpre, Tensor low, DType t, boolean biasGrad, int rows,
                           Stream s) {
        boolean pre16 = pre != null && pre.dtype() != DType.FP32;
        // blocks of 256 threads own 8 columns (see there)
        ctx.kernels().launch("elementwise.cu", "bias_grad", (out + 7) / 8, 256, s, dy, pre16 ? null : pre,
                pre16 ? pre : null, dpre, low, t == DType.FP16 ? 1 : 0, bias == null || !biasGrad ? null : bias.grad(),
                rows, out);
    }

    private void gemmBackward(Tensor x, Tensor dy, Tensor dx, float beta, boolean weightGrad, int rows, Stream s) {
        Cublas blas = ctx.blasOn(s);
        // column-major view: dy is dyᵀ [out × rows], x is xᵀ [in × rows], W is Wᵀ [in × out]
        if (dx != null) {
            blas.gemm(GemmPrecision.FP32, false, false, in, rows, out, 1f, weight.value().address(), in,
                    dy.address(), out, beta, dx.address(), in);
        }
        if (!weightGrad) {
            return;
        }
        blas.gemm(GemmPrecision.FP32, false, true, in, out, rows, 1f, x.address(), in, dy.address(), out, 1f,
                weight.grad().address(), in);
    }

    /**
     * y = x·Wᵀ + b through cuBLASLt on 16-bit copies of W and x (xLow, or cast here), the bias in the epilogue;
     * y fp32 (the fp32 bias), or of the autocast dtype (the bias's 16-bit copy, as torch's addmm under autocast).
     */
    private void lowGemmForward(Tensor x, Tensor xLow, Tensor y, int rows, Stream s) {
        DType t = ctx.autocast();
        Tensor lowWeight = weight.lowCopy(ctx, t, s);
        if (xLow != null) {
            Shapes.require(OP, "xLow", xLow, x.shape());
            Shapes.requireDtype(OP, "xLow", xLow, t);
            Shapes.requireContiguous(OP, "xLow", xLow);
            lowX = xLow;
        } else {
            lowXScratch = castInto(x, lowXScratch, t, s);
            lowX = lowXScratch;
        }
        lowXSource = x;
        boolean lowY = y.dtype() != DType.FP32;
        // the epilogue's bias is of y's type (CublasLt)
        Tensor b = bias == null ? null : lowY ? bias.lowCopy(ctx, t, s) : bias.value();
        boolean fused = ctx.blasLt().matmul(s, precision(t), lowY ? precision(t) : GemmPrecision.FP32, true, false,
                out, rows, in, 1f, lowWeight.address(), in, lowX.address(), in, 0f, y.address(), out,
                bias == null ? CublasLt.Epilogue.DEFAULT : CublasLt.Epilogue.BIAS, b == null ? 0 : b.address(), 0, 0);
        if (!fused && lowY) {
            // no cuBLASLt algorithm: y starts as the bias, added to the product (beta 1) before the one rounding
            if (b != null) {
                ctx.kernels().launch("elementwise.cu", "fill_rows16", ctx.kernels().gridFor(y.numel(), 256), 256, s,
                        y, b, y.numel(), out);
            }
            ctx.blasOn(s).gemm(precision(t), true, false, out, rows, in, 1f, lowWeight.address(), in,
                    lowX.address(), in, b == null ? 0f : 1f, y.address(), out);
        } else if (!fused) {
            // no cuBLASLt algorithm for this shape (odd leading dimensions): cuBLAS, then the bias in a pass
            ctx.blasOn(s).gemm(mixed(t), true, false, out, rows, in, 1f, lowWeight.address(), in, lowX.address(), in,
                    0f, y.address(), out);
            if (bias != null) {
                ctx.kernels().launch("elementwise.cu", "bias_act_forward", ctx.kernels().gridFor(y.numel(), 256), 256,
                        s, y, bias.value(), null, y.numel(), out, 0);
            }
        }
    }

    /**
     * dx = dy·W (+ dx with beta 1) and dW += dyᵀ·x on 16-bit copies (dy's in dyLow; x's from the forward pass
     * when it is the same tensor), fp32 results.
     */
    private void lowGemmBackward(Tensor x, Tensor dyLow, Tensor dx, float beta, boolean weightGrad, int rows,
                                 Stream s) {
        DType t = ctx.autocast();
        Tensor lowWeight = weight.lowCopy(ctx, t, s);
        if (dx != null) {
            lowGemm(s, t, false, false, in, rows, out, lowWeight, in, dyLow, out, beta, dx, in);
        }
        if (!weightGrad) {
            return;
        }
        if (!x.sameElementsAs(lowXSource) || lowX.dtype() != t) {
            lowXScratch = castInto(x, lowXScratch, t, s);
            lowX = lowXScratch;
            lowXSource = x;
        }
        lowGemm(s, t, false, true, in, out, rows, lowX, in, dyLow, out, 1f, weight.grad(), in);
    }

    /** A 16-bit GEMM into fp32 without epilogue: cuBLASLt, or cuBLAS where cuBLASLt has no algorithm. */
    private void lowGemm(Stream s, DType t, boolean transA, boolean transB, int m, int n, int k, Tensor a, int lda,
                         Tensor b, int ldb, float beta, Tensor c, int ldc) {
        if (!ctx.blasLt().matmul(s, precision(t), GemmPrecision.FP32, transA, transB, m, n, k, 1f, a.address(), lda,
                b.address(), ldb, beta, c.address(), ldc, CublasLt.Epilogue.DEFAULT, 0, 0, 0)) {
            ctx.blasOn(s).gemm(mixed(t), transA, transB, m, n, k, 1f, a.address(), lda, b.address(), ldb, beta,
                    c.address(), ldc);
        }
    }

    /** src rounded to {@code t} into {@code scratch} (replaced when too small or of another dtype). */
    private Tensor castInto(Tensor src, Tensor scratch, DType t, Stream s) {
        Tensor dst = scratch;
        if (dst == null || dst.dtype() != t || dst.numel() < src.numel()) {
            if (dst != null) {
                dst.close();
            }
            dst = ctx.empty(OP, "16-bit x", t, (int) src.numel());
        }
        ew.roundTo16(src, dst, s);
        return dst;
    }

    private static GemmPrecision precision(DType t) {
        return t == DType.FP16 ? GemmPrecision.FP16 : GemmPrecision.BF16;
    }

    /** 16-bit operands, fp32 output: cuBLAS's form of the same GEMM. */
    private static GemmPrecision mixed(DType t) {
        return t == DType.FP16 ? GemmPrecision.FP16_FP32 : GemmPrecision.BF16_FP32;
    }

    @Override
    public void close() {
        if (lowXScratch != null) {
            lowXScratch.close();
        }
        if (ownsLowDy) {
            lowDy.close();
        }
        Layer.super.close();
    }

    /** y = x·Wᵀ in fp32 (cuBLAS). */
    private void gemmForward(Tensor x, Tensor y, int rows, Stream s) {
        ctx.blasOn(s).gemm(GemmPrecision.FP32, true, false, out, rows, in, 1f, weight.value().address(), in,
                x.address(), in, 0f, y.address(), out);
    }

    /**
     * y = x·Wᵀ + b in fp32 through cuBLASLt with the bias in its epilogue (torch's addmm: one kernel, no pass over
     * y after it); false, with nothing launched, where the layer has no bias or cuBLASLt no algorithm for the shape.
     */
    private boolean biasGemmForward(Tensor x, Tensor y, int rows, Stream s) {
        return bias != null && ctx.blasLt().matmul(s, GemmPrecision.FP32, GemmPrecision.FP32, true, false, out, rows,
                in, 1f, weight.value().address(), in, x.address(), in, 0f, y.address(), out, CublasLt.Epilogue.BIAS,
                bias.value().address(), 0, 0);
    }

    /**
     * A GEMM output (y, or GELU's pre-activation) as {@link #check} checks y, but under autocast also of the
     * autocast dtype; returns the number of rows.
     */
    private int checkOutput(Tensor x, String yName, Tensor y) {
        DType t = ctx.autocast();
        if (t == null || y.dtype() != t) {
            return check(x, yName, y);
        }
        int rows = checkShapes(x, yName, y);
        Shapes.requireContiguous(OP, yName, y);
        return rows;
    }

    /** x [..., in] and y (or dy) [..., out] with the same leading dimensions; returns the number of rows. */
    private int check(Tensor x, String yName, Tensor y) {
        int rows = checkShapes(x, yName, y);
        Shapes.requireDtype(OP, yName, y, DType.FP32);
        Shapes.requireContiguous(OP, yName, y);
        return rows;
    }

    /** As {@link #check}, y's dtype aside. */
    private int checkShapes(Tensor x, String yName, Tensor y) {
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        if (x.rank() < 1 || x.dim(-1) != in) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape())
                    + ", expected [..., " + in + "] (in_features " + in + ")");
        }
        int[] expected = x.shape();
        expected[expected.length - 1] = out;
        Shapes.require(OP, yName, y, expected);
        return (int) (x.numel() / in);
    }
}
