package dev.aorta.model.ops;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * Scaled dot-product attention, o = softmax(q·kᵀ/√D (+ causal mask))·v, on q, k, v, o [batch, heads, T, D]
 * (D ≤ 128), as torch.nn.functional.scaled_dot_product_attention. The forward pass keeps the
 * logsumexp of each row ([batch, heads, T]) and the backward pass recomputes the probabilities from it.
 * o, lse, dout and the gradients are fp32; q, k, v are fp32, or bf16 / fp16 under autocast.
 *
 * <p>16-bit q, k, v (D ≤ {@value #TENSOR_CORE_MAX_HEAD_DIM}, what the encoder layer's head-layout pass writes
 * under autocast, as torch's layer hands SDPA 16-bit tensors): tensor-core kernels (attention16.cu), fp32
 * accumulation and softmax, any T: one launch forward, two backward (dq with the row sums dO·O, then dk and
 * dv). A full-tile instance without bounds checks where T is a multiple of 64 and D = 64 (the ranking
 * model's heads).
 *
 * <p>fp32 q, k, v take two fp32 paths, whether autocast is on or not. Where the scores of all heads fit a scratch
 * of {@value #DEFAULT_MAX_SCORES_BYTES} bytes (the ranking model's T = 64; fsdp_tp's 8×8 heads of T = 512, 64 MiB):
 * [batch·heads, T, T] through batched cuBLAS GEMMs (tensor-core-free fp32, like the rest) with one softmax kernel
 * between them, 3 launches forward, 6 backward. Beyond it: flash style, the T×T scores never stored, our kernels,
 * which reload K and V per 4 rows on the CUDA cores: on an H200 at 8×8×512×64 they took 1985 µs forward and
 * 2 × 2596 backward where torch's fp32 memory-efficient kernels take 155 and 322, and the GEMM path about as much
 * as torch's; so the flash kernels are kept only for what would not fit.
 * The scratch is this object's (one call in flight per instance), grown on demand, given back by
 * {@link #close}.
 */
public final class Attention implements AutoCloseable {
    private static final String OP = "attention";
    private static final int ROWS_PER_BLOCK = 4;
    private static final int MAX_GRID_Y = 65_535;
    public static final int MAX_HEAD_DIM = 128;
    /** The largest head of the 16-bit tensor-core kernels (attention16.cu's {@code A16_DMAX}). */
    public static final int TENSOR_CORE_MAX_HEAD_DIM = 64;
    /** attention16.cu: blocks of 4 warps own 64 rows of a head; its full-tile instance wants T a multiple. */
    private static final int TENSOR_CORE_ROWS = 64;
    /** The largest scores scratch of the GEMM path, by default. */
    public static final long DEFAULT_MAX_SCORES_BYTES = 256L << 20;

    private final OpContext ctx;
    private final long maxScoresBytes;
    private Tensor scores;
    private Tensor dscores;

    public Attention(OpContext ctx) {
        this(ctx, DEFAULT_MAX_SCORES_BYTES);
    }

    /**
     * With a scores scratch of at most {@code maxScoresBytes} for the fp32 GEMM path (0: the flash kernels always,
     * which the checks use to cover them at small sizes).
     */
    public Attention(OpContext ctx, long maxScoresBytes) {
        this.ctx = ctx;
        this.maxScoresBytes = maxScoresBytes;
    }

    /** Whether fp32 attention over batch·heads = {@code bh} sequences of {@code t} takes the GEMM (scores) path. */
    private static boolean scoresPath(long bh, int t, long maxScoresBytes) {
        return bh * t * t * Float.BYTES <= maxScoresBytes;
    }

    private boolean scoresPath(Tensor q) {
        return scoresPath((long) q.dim(0) * q.dim(1), q.dim(2), maxScoresBytes);
    }

    public void forward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, boolean causal, Stream s) {
        checkQkv(q, k, v);
        same("q", q, "o", o);
        rowStats("lse", q, lse);
        if (q.dtype() != DType.FP32) {
            launch16("forward", q, k, v, s, o, lse, q.dim(2), q.dim(3), scale(q), causal ? 1 : 0);
            return;
        }
        if (scoresPath(q)) {
            shortForward(q, k, v, o, lse, causal, s);
            return;
        }
        int[] g = grid(q);
        ctx.kernels().launch2d("attention.cu", "attention_forward", g[0], g[1], 32 * ROWS_PER_BLOCK, s, q, k, v, o,
                lse, q.dim(2), q.dim(3), scale(q), causal ? 1 : 0);
    }

    /**
     * dq, dk, dv (overwritten) from dout; {@code delta} [batch, heads, T] is scratch for the row sums dO·O that
     * the two backward launches share.
     */
    public void backward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, Tensor dout, Tensor delta, Tensor dq,
                         Tensor dk, Tensor dv, boolean causal, Stream s) {
        checkQkv(q, k, v);
        same("q", q, "o", o);
        same("q", q, "dout", dout);
        same("q", q, "dq", dq);
        same("q", q, "dk", dk);
        same("q", q, "dv", dv);
        rowStats("lse", q, lse);
        rowStats("delta", q, delta);
        if (q.dtype() != DType.FP32) {
            int t = q.dim(2);
            int d = q.dim(3);
            launch16("backward_dq", q, k, v, s, o, dout, lse, delta, dq, t, d, scale(q), causal ? 1 : 0);
            launch16("backward_dkdv", q, k, v, s, dout, lse, delta, dk, dv, t, d, scale(q), causal ? 1 : 0);
            return;
        }
        if (scoresPath(q)) {
            shortBackward(q, k, v, lse, dout, delta, dq, dk, dv, causal, s);
            return;
        }
        int[] g = grid(q);
        int t = q.dim(2);
        int d = q.dim(3);
        ctx.kernels().launch2d("attention.cu", "attention_backward_dq", g[0], g[1], 32 * ROWS_PER_BLOCK, s, q, k, v, o,
                dout, lse, delta, dq, t, d, scale(q), causal ? 1 : 0);
        ctx.kernels().launch2d("attention.cu", "attention_backward_dkdv", g[0], g[1], 32 * ROWS_PER_BLOCK, s, q, k, v,
                dout, lse, delta, dk, dv, t, d, scale(q), causal ? 1 : 0);
    }

    /**
     * Row-major [T, D] per head is column-major D×T (ld D); S row-major [T, T] (query rows) is column-major
     * with keys down the columns: S = K·Qᵀ in column-major terms.
     */
    private void shortForward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, boolean causal, Stream s) {
        int bh = q.dim(0) * q.dim(1);
        int t = q.dim(2);
        int d = q.dim(3);
        long td = (long) t * d;
        long tt = (long) t * t;
        scores = ensure(scores, bh, t);
        Cublas blas = ctx.blasOn(s);
        blas.gemmStridedBatched(GemmPrecision.FP32, true, false, t, t, d, 1f, k.address(), d, td, q.address(), d, td,
                0f, scores.address(), t, tt, bh);
        ctx.kernels().launch("attention.cu", "attention_small_softmax", (bh * t + 3) / 4, 128, s, scores, lse, bh * t,
                t, scale(q), causal ? 1 : 0);
        // O (column-major D×T) = V (D×T) · P (column-major view: Pᵀ)
        blas.gemmStridedBatched(GemmPrecision.FP32, false, false, d, t, t, 1f, v.address(), d, td, scores.address(),
                t, tt, 0f, o.address(), d, td, bh);
    }

    private void shortBackward(Tensor q, Tensor k, Tensor v, Tensor lse, Tensor dout, Tensor delta, Tensor dq,
                               Tensor dk, Tensor dv, boolean causal, Stream s) {
        int bh = q.dim(0) * q.dim(1);
        int t = q.dim(2);
        int d = q.dim(3);
        long td = (long) t * d;
        long tt = (long) t * t;
        scores = ensure(scores, bh, t);
        dscores = ensure(dscores, bh, t);
        float scale = scale(q);
        Cublas blas = ctx.blasOn(s);
        blas.gemmStridedBatched(GemmPrecision.FP32, true, false, t, t, d, 1f, k.address(), d, td, q.address(), d, td,
                0f, scores.address(), t, tt, bh);
        // dP = dO·Vᵀ, laid out as S
        blas.gemmStridedBatched(GemmPrecision.FP32, true, false, t, t, d, 1f, v.address(), d, td, dout.address(), d,
                td, 0f, dscores.address(), t, tt, bh);
        ctx.kernels().launch("attention.cu", "attention_small_backward", (bh * t + 3) / 4, 128, s, scores, dscores,
                lse, delta, bh * t, t, scale, causal ? 1 : 0);
        // dV = Pᵀ·dO, dQ = scale·dS·K, dK = scale·dSᵀ·Q
        blas.gemmStridedBatched(GemmPrecision.FP32, false, true, d, t, t, 1f, dout.address(), d, td,
                scores.address(), t, tt, 0f, dv.address(), d, td, bh);
        blas.gemmStridedBatched(GemmPrecision.FP32, false, false, d, t, t, scale, k.address(), d, td,
                dscores.address(), t, tt, 0f, dq.address(), d, td, bh);
        blas.gemmStridedBatched(GemmPrecision.FP32, false, true, d, t, t, scale, q.address(), d, td,
                dscores.address(), t, tt, 0f, dk.address(), d, td, bh);
    }

    /** {@code cur} when it has room for [bh, t, t] (the kernels use its first bh·t·t elements), else a new one. */
    private Tensor ensure(Tensor cur, int bh, int t) {
        if (cur != null && cur.numel() >= (long) bh * t * t) {
            return cur;
        }
        if (cur != null) {
            cur.close();
        }
        return ctx.empty(OP, "scores", DType.FP32, bh, t, t);
    }

    @Override
    public void close() {
        for (Tensor t : new Tensor[] {scores, dscores}) {
            if (t != null) {
                t.close();
            }
        }
    }

    /**
     * attention16.cu's {@code kind} kernel for q's dtype with arguments q, k, v, then {@code rest}: its full-tile
     * instance where T is a multiple of 64, D = 64 and every tensor starts on a 16-byte boundary (its vector
     * accesses; the allocator's buffers and the encoder layer's q/k/v slices do), else the bounds-checked one.
     */
    private void launch16(String kind, Tensor q, Tensor k, Tensor v, Stream s, Object... rest) {
        requireHeadsOnGrid(q);
        long addresses = q.address() | k.address() | v.address();
        for (Object a : rest) {
            if (a instanceof Tensor t) {
                addresses |= t.address();
            }
        }
        String name = kernel16(kind, q.dtype(), q.dim(2), q.dim(3), addresses);
        Object[] args = new Object[3 + rest.length];
        args[0] = q;
        args[1] = k;
        args[2] = v;
        System.arraycopy(rest, 0, args, 3, rest.length);
        ctx.kernels().launch2d("attention16.cu", name, (q.dim(2) + TENSOR_CORE_ROWS - 1) / TENSOR_CORE_ROWS,
                q.dim(0) * q.dim(1), 128, s, args);
    }

    /**
     * attention16.cu's instance of {@code kind} for 16-bit {@code dtype} heads of T × D whose tensors' addresses,
     * or-ed, are {@code addresses}: full tiles (no bounds checks, 16-byte vector accesses) or the general one.
     */
    static String kernel16(String kind, DType dtype, int t, int d, long addresses) {
        boolean full = t % TENSOR_CORE_ROWS == 0 && d == TENSOR_CORE_MAX_HEAD_DIM && addresses % 16 == 0;
        return "attention16_" + kind + "_" + (dtype == DType.FP16 ? "f16" : "bf16") + (full ? "_full" : "");
    }

    private static float scale(Tensor q) {
        return (float) (1 / Math.sqrt(q.dim(3)));
    }

    private static int[] grid(Tensor q) {
        requireHeadsOnGrid(q);
        return new int[] {(q.dim(2) + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, q.dim(0) * q.dim(1)};
    }

    /** The flash and tensor-core kernels put batch·heads on the grid's y axis, which CUDA caps at 65 535. */
    private static void requireHeadsOnGrid(Tensor q) {
        long bh = (long) q.dim(0) * q.dim(1);
        if (bh > MAX_GRID_Y) {
            throw new IllegalArgumentException(OP + ": operand q has shape " + Shapes.format(q.shape()) + ", batch x heads "
                    + bh + ", more than the " + MAX_GRID_Y + " the kernels' grid allows; split the batch");
        }
    }

    private static void checkQkv(Tensor q, Tensor k, Tensor v) {
        Shapes.requireRank(OP, "q", q, 4);
        Shapes.requireContiguous(OP, "q", q);
        boolean low = q.dtype() == DType.BF16 || q.dtype() == DType.FP16;
        if (!low) {
            Shapes.requireDtype(OP, "q", q, DType.FP32);
        }
        int maxD = low ? TENSOR_CORE_MAX_HEAD_DIM : MAX_HEAD_DIM;
        if (q.dim(3) > maxD || q.dim(3) == 0 || q.dim(2) == 0) {
            throw new IllegalArgumentException(OP + ": operand q (" + q.dtype() + ") has shape "
                    + Shapes.format(q.shape()) + ", expected [batch, heads, T >= 1, 1 <= D <= " + maxD + "]");
        }
        for (Tensor x : new Tensor[] {k, v}) {
            String name = x == k ? "k" : "v";
            Shapes.requireSame(OP, "q", q, name, x);
            Shapes.requireDtype(OP, name, x, q.dtype());
            Shapes.requireContiguous(OP, name, x);
        }
    }

    private static void same(String nameA, Tensor a, String nameB, Tensor b) {
        Shapes.requireSame(OP, nameA, a, nameB, b);
        Shapes.requireDtype(OP, nameB, b, DType.FP32);
        Shapes.requireContiguous(OP, nameB, b);
    }

    private static void rowStats(String name, Tensor q, Tensor t) {
        Shapes.require(OP, name, t, q.dim(0), q.dim(1), q.dim(2));
        Shapes.requireDtype(OP, name, t, DType.FP32);
        Shapes.requireContiguous(OP, name, t);
    }
}
