package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * Scaled dot-product attention, o = softmax(q·kᵀ/√D (+ causal mask))·v, on q, k, v, o [batch, heads, T, D]
 * (fp32, D ≤ 128), as torch.nn.functional.scaled_dot_product_attention. Flash style: the T×T scores are
 * never stored; the forward pass keeps the logsumexp of each row ([batch, heads, T]) and the backward pass
 * recomputes the probabilities from it.
 */
public final class Attention {
    private static final String OP = "attention";
    private static final int ROWS_PER_BLOCK = 4;
    public static final int MAX_HEAD_DIM = 128;

    private final OpContext ctx;

    public Attention(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, boolean causal, Stream s) {
        checkQkv(q, k, v);
        same("q", q, "o", o);
        rowStats("lse", q, lse);
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
        int[] g = grid(q);
        int t = q.dim(2);
        int d = q.dim(3);
        ctx.kernels().launch2d("attention.cu", "attention_backward_dq", g[0], g[1], 32 * ROWS_PER_BLOCK, s, q, k, v, o,
                dout, lse, delta, dq, t, d, scale(q), causal ? 1 : 0);
        ctx.kernels().launch2d("attention.cu", "attention_backward_dkdv", g[0], g[1], 32 * ROWS_PER_BLOCK, s, q, k, v,
                dout, lse, delta, dk, dv, t, d, scale(q), causal ? 1 : 0);
    }

    private static float scale(Tensor q) {
        return (float) (1 / Math.sqrt(q.dim(3)));
    }

    private static int[] grid(Tensor q) {
        return new int[] {(q.dim(2) + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, q.dim(0) * q.dim(1)};
    }

    private static void checkQkv(Tensor q, Tensor k, Tensor v) {
        Shapes.requireRank(OP, "q", q, 4);
        Shapes.requireDtype(OP, "q", q, DType.FP32);
        Shapes.requireContiguous(OP, "q", q);
        if (q.dim(3) > MAX_HEAD_DIM || q.dim(3) == 0 || q.dim(2) == 0) {
            throw new IllegalArgumentException(OP + ": operand q has shape " + Shapes.format(q.shape())
                    + ", expected [batch, heads, T >= 1, 1 <= D <= " + MAX_HEAD_DIM + "]");
        }
        same("q", q, "k", k);
        same("q", q, "v", v);
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
