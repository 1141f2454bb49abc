package dev.aorta.model.ops;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * torch.nn.Conv2d(ci, co, (kh, kw), stride, padding) on NCHW fp32 x [n, ci, h, w] → y [n, co, oh, ow], as im2col
 * into scratch this layer keeps ({@link Im2col}: col [K = ci·kh·kw][P = oh·ow] per image) and one cuBLAS GEMM per
 * pass, batched over the pass's images: y_img [co][P] = W [co][K] · col_img. The backward pass recomputes the
 * columns from x; dW += Σ_img dy_img · col_imgᵀ (one GEMM per image, accumulating), dx is col2im of Wᵀ · dy_img
 * (batched GEMM into fp32 column scratch, then a gather per dx element: deterministic). The bias (and ReLU in
 * {@link #forwardRelu}) is one pass over y after the GEMMs: cuBLAS's bias epilogue would add per output position,
 * not per channel, in this layout. Everything runs on the caller's stream.
 *
 * <p>Precision follows the context: fp32 GEMMs without TF32 by default (within fp32 rounding of the float64
 * reference); TF32 tensor cores with {@link OpContext#convTf32(boolean)} (torch's default for convolutions);
 * under autocast bf16 or fp16, im2col writes 16-bit columns (the cast costs no extra pass), W's 16-bit copy is
 * the parameter's ({@link Parameter#lowCopy}) and dy is rounded once per pass; fp32 accumulation and fp32
 * outputs throughout. A pass takes as many images as fit {@link #MAX_COLUMN_ELEMENTS}, so the scratch stays
 * bounded for any batch (one call in flight per layer, like {@link Linear}'s). Weight [co, ci, kh, kw] and bias
 * [co] start as torch's (uniform ±1/√(ci·kh·kw)).
 */
public final class Conv2d implements Layer {
    private static final String OP = "conv2d";
    /** Column scratch per pass: 64 Mi elements (256 MiB in fp32, 128 MiB in 16 bits); fewer passes gain little. */
    static final long MAX_COLUMN_ELEMENTS = 64L << 20;
    private static final int BLOCK = 256;
    /** Column positions per thread of the im2col pass (IM2COL_PER_THREAD in conv.cu). */
    private static final int IM2COL_PER_THREAD = 8;

    private final OpContext ctx;
    private final Elementwise ew;
    private final int ci;
    private final int co;
    private final int kh;
    private final int kw;
    private final int stride;
    private final int pad;
    private final Parameter weight;
    private final Parameter bias;
    /** The column matrices of one pass (fp32, or 16-bit under autocast). */
    private Tensor columns;
    /** The input gradient's column matrices of one pass (fp32). */
    private Tensor columnGrads;
    /** dy of one pass rounded to 16 bits (autocast only). */
    private Tensor lowDy;

    public Conv2d(OpContext ctx, String name, int ci, int co, int kh, int kw, int stride, int pad, boolean withBias,
                  long seed) {
        if (ci < 1 || co < 1 || kh < 1 || kw < 1 || stride < 1 || pad < 0) {
            throw new IllegalArgumentException(OP + ": channels, kernel and stride must be positive and padding"
                    + " non-negative; got ci " + ci + ", co " + co + ", kernel " + kh + "x" + kw + ", stride " + stride
                    + ", padding " + pad);
        }
        this.ctx = ctx;
        this.ew = new Elementwise(ctx);
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
        Im2col g = geometry(h, w);
        return new int[] {n, co, g.oh(), g.ow()};
    }

    public void forward(Tensor x, Tensor y, Stream s) {
        forward(x, y, false, s);
    }

    /**
     * y = max(0, conv(x) + b), the ReLU in the bias pass. For inference: the pre-activation is not kept, so there
     * is no backward pass of this form.
     */
    public void forwardRelu(Tensor x, Tensor y, Stream s) {
        forward(x, y, true, s);
    }

    /**
     * y = conv(x) without the bias, for an inference caller that applies bias and ReLU in the op after it
     * ({@link MaxPool2d#forwardBiasRelu}, {@link GlobalAvgPool#forwardBiasRelu}) with {@link #bias()}: a pass over
     * the convolution's output fewer.
     */
    public void forwardWithoutBias(Tensor x, Tensor y, Stream s) {
        gemms(x, y, check(x, "y", y), s);
    }

    /** The bias values, for {@link #forwardWithoutBias}'s caller; the convolution must have one. */
    public Tensor bias() {
        if (bias == null) {
            throw new IllegalStateException(OP + " " + weight.name() + " has no bias");
        }
        return bias.value();
    }

    private void forward(Tensor x, Tensor y, boolean relu, Stream s) {
        Im2col g = check(x, "y", y);
        gemms(x, y, g, s);
        if (bias != null || relu) {
            int gridX = PlaneGrid.x(g.p());
            ctx.kernels().launch2d("conv.cu", "conv_bias_act", gridX, PlaneGrid.y((long) x.dim(0) * co, gridX),
                    PlaneGrid.BLOCK, s, y, bias == null ? null : bias.value(), (long) x.dim(0) * co, co, g.p(),
                    relu ? 1 : 0);
        }
    }

    /** y = conv(x) without bias: per pass of the column scratch an im2col and a batched GEMM. */
    private void gemms(Tensor x, Tensor y, Im2col g, Stream s) {
        int n = x.dim(0);
        int per = g.imagesPerPass(n, MAX_COLUMN_ELEMENTS);
        DType low = ctx.autocast();
        GemmPrecision p = precision();
        Tensor w = low == null ? weight.value() : weight.lowCopy(ctx, low, s);
        columns = scratch(columns, "columns", low == null ? DType.FP32 : low, per * g.elementsPerImage());
        Cublas blas = ctx.blasOn(s);
        for (int from = 0; from < n; from += per) {
            int nb = Math.min(per, n - from);
            im2col(x.slice(0, from, nb), g, s);
            // column-major: y_img (P x co, ld P) = col_img (P x K, ld P) · Wᵀ (K x co, ld K), W shared (stride 0)
            blas.gemmStridedBatched(p, false, false, g.p(), co, g.k(), 1f, columns.address(), g.p(),
                    g.elementsPerImage(), w.address(), g.k(), 0, 0f, y.slice(0, from, nb).address(), g.p(),
                    (long) co * g.p(), nb);
        }
    }

    /** dx (overwritten; skipped when null), dW and db (accumulated). */
    public void backward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        Im2col g = check(x, "dy", dy);
        if (dx != null) {
            Shapes.requireSame(OP, "x", x, "dx", dx);
            Shapes.requireDtype(OP, "dx", dx, DType.FP32);
            Shapes.requireContiguous(OP, "dx", dx);
        }
        int n = x.dim(0);
        if (bias != null) {
            ctx.kernels().launch("conv.cu", "conv2d_backward_bias", co, BLOCK, s,
                    concat(new Object[] {dy, bias.grad()}, shapeArgs(n, g)));
        }
        int per = g.imagesPerPass(n, MAX_COLUMN_ELEMENTS);
        DType low = ctx.autocast();
        GemmPrecision p = precision();
        int bytes = low == null ? 4 : 2;
        Tensor w = low == null ? weight.value() : weight.lowCopy(ctx, low, s);
        columns = scratch(columns, "columns", low == null ? DType.FP32 : low, per * g.elementsPerImage());
        if (dx != null) {
            columnGrads = scratch(columnGrads, "column gradients", DType.FP32, per * g.elementsPerImage());
        }
        long dyPerImage = (long) co * g.p();
        if (low != null) {
            lowDy = scratch(lowDy, "16-bit dy", low, per * dyPerImage);
        }
        Cublas blas = ctx.blasOn(s);
        for (int from = 0; from < n; from += per) {
            int nb = Math.min(per, n - from);
            im2col(x.slice(0, from, nb), g, s);
            Tensor dyPass = dy.slice(0, from, nb);
            if (low != null) {
                ew.roundTo16(dyPass, lowDy, s);
            }
            long dyAddress = low == null ? dyPass.address() : lowDy.address();
            for (int i = 0; i < nb; i++) {
                // dW (K x co, ld K) += col_imgᵀ (K x P) · dy_img (P x co, ld P)
                blas.gemm(p, true, false, g.k(), co, g.p(), 1f, columns.address() + i * g.elementsPerImage() * bytes,
                        g.p(), dyAddress + i * dyPerImage * bytes, g.p(), 1f, weight.grad().address(), g.k());
            }
            if (dx != null) {
                // dcol_img (P x K, ld P) = dy_img (P x co) · W (co x K: the stored K x co transposed)
                blas.gemmStridedBatched(p, false, true, g.p(), g.k(), co, 1f, dyAddress, g.p(), dyPerImage,
                        w.address(), g.k(), 0, 0f, columnGrads.address(), g.p(), g.elementsPerImage(), nb);
                Tensor dxPass = dx.slice(0, from, nb);
                ctx.kernels().launch("conv.cu", "conv_col2im", ctx.kernels().gridFor(dxPass.numel(), BLOCK), BLOCK, s,
                        concat(new Object[] {columnGrads, dxPass}, shapeArgs(nb, g)));
            }
        }
    }

    /** The column matrices of x's images (a pass) into {@link #columns}, in its dtype. */
    private void im2col(Tensor x, Im2col g, Stream s) {
        int gridX = PlaneGrid.x(g.p(), IM2COL_PER_THREAD);
        int gridY = PlaneGrid.y((long) x.dim(0) * g.k(), gridX);
        if (columns.dtype() == DType.FP32) {
            ctx.kernels().launch2d("conv.cu", "conv_im2col_f32", gridX, gridY, PlaneGrid.BLOCK, s,
                    concat(new Object[] {x, columns}, shapeArgs(x.dim(0), g)));
        } else {
            ctx.kernels().launch2d("conv.cu", "conv_im2col_16", gridX, gridY, PlaneGrid.BLOCK, s,
                    concat(new Object[] {x, columns, columns.dtype() == DType.FP16 ? 1 : 0}, shapeArgs(x.dim(0), g)));
        }
    }

    /** The GEMMs' precision: autocast's 16-bit operands, else fp32 (TF32 where the context allows it). */
    private GemmPrecision precision() {
        DType low = ctx.autocast();
        if (low == DType.BF16) {
            return GemmPrecision.BF16_FP32;
        }
        if (low == DType.FP16) {
            return GemmPrecision.FP16_FP32;
        }
        return ctx.convTf32() ? GemmPrecision.TF32 : GemmPrecision.FP32;
    }

    private Im2col geometry(int h, int w) {
        return new Im2col(ci, h, w, kh, kw, stride, pad);
    }

    /** Checks x [n, ci, h, w] and y (or dy) [n, co, oh, ow]; returns the geometry. */
    private Im2col check(Tensor x, String yName, Tensor y) {
        Shapes.requireRank(OP, "x", x, 4);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        if (x.dim(1) != ci || x.dim(2) + 2 * pad < kh || x.dim(3) + 2 * pad < kw) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape())
                    + ", expected [n, " + ci + ", h, w] with the padded image at least the kernel " + kh + "x" + kw);
        }
        Im2col g = geometry(x.dim(2), x.dim(3));
        if (g.elementsPerImage() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape()) + ", whose "
                    + g.k() + " x " + g.p() + " column matrix per image exceeds the 2^31 elements a scratch tensor holds");
        }
        Shapes.require(OP, yName, y, x.dim(0), co, g.oh(), g.ow());
        Shapes.requireDtype(OP, yName, y, DType.FP32);
        Shapes.requireContiguous(OP, yName, y);
        return g;
    }

    /** The kernels' eleven shape arguments for {@code n} images. */
    private Object[] shapeArgs(int n, Im2col g) {
        return new Object[] {n, ci, g.h(), g.w(), co, kh, kw, stride, pad, g.oh(), g.ow()};
    }

    /** {@code old}, or a new flat tensor where it is missing, too small or of another dtype. */
    private Tensor scratch(Tensor old, String what, DType t, long numel) {
        if (old != null && old.dtype() == t && old.numel() >= numel) {
            return old;
        }
        if (old != null) {
            old.close();
        }
        return ctx.empty(OP, what, t, Math.toIntExact(numel));
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] r = new Object[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Override
    public void close() {
        for (Tensor t : new Tensor[] {columns, columnGrads, lowDy}) {
            if (t != null) {
                t.close();
            }
        }
        Layer.super.close();
    }
}
