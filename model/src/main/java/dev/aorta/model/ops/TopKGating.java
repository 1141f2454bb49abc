package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * Top-k gating with renormalisation (mixture-of-experts routing) on logits [rows, experts]: per row the k
 * largest logits (ties to the lower expert index), experts [rows, k] (i32, largest first) and gates
 * [rows, k] = softmax over the chosen logits only (= the top-k softmax probabilities divided by their sum).
 * One warp per row; k ≤ {@value #MAX_K}.
 */
public final class TopKGating {
    private static final String OP = "top-k gating";
    public static final int MAX_K = 32;

    private final OpContext ctx;

    public TopKGating(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(Tensor logits, Tensor experts, Tensor gates, Stream s) {
        int[] rk = check(logits, experts, gates);
        ctx.kernels().launch("gating.cu", "topk_gating_forward", (rk[0] + 3) / 4, 128, s, logits, experts, gates,
                rk[0], logits.dim(1), rk[1]);
    }

    /** dlogits (overwritten) from dgates: the softmax backward over the chosen logits, zero elsewhere. */
    public void backward(Tensor logits, Tensor experts, Tensor gates, Tensor dgates, Tensor dlogits, Stream s) {
        int[] rk = check(logits, experts, gates);
        Shapes.requireSame(OP, "gates", gates, "dgates", dgates);
        Shapes.requireDtype(OP, "dgates", dgates, DType.FP32);
        Shapes.requireSame(OP, "logits", logits, "dlogits", dlogits);
        Shapes.requireDtype(OP, "dlogits", dlogits, DType.FP32);
        ctx.kernels().launch("gating.cu", "topk_gating_backward", (rk[0] + 3) / 4, 128, s, experts, gates, dgates,
                dlogits, rk[0], logits.dim(1), rk[1]);
    }

    /** Returns {rows, k}. */
    private static int[] check(Tensor logits, Tensor experts, Tensor gates) {
        Shapes.requireRank(OP, "logits", logits, 2);
        Shapes.requireDtype(OP, "logits", logits, DType.FP32);
        Shapes.requireContiguous(OP, "logits", logits);
        Shapes.requireRank(OP, "gates", gates, 2);
        int rows = logits.dim(0);
        int k = gates.dim(1);
        if (k < 1 || k > Math.min(MAX_K, logits.dim(1))) {
            throw new IllegalArgumentException(OP + ": k = " + k + " (gates " + Shapes.format(gates.shape())
                    + ") must lie in [1, min(" + MAX_K + ", experts " + logits.dim(1) + ")]");
        }
        Shapes.require(OP, "gates", gates, rows, k);
        Shapes.requireDtype(OP, "gates", gates, DType.FP32);
        Shapes.require(OP, "experts", experts, rows, k);
        Shapes.requireDtype(OP, "experts", experts, DType.I32);
        return new int[] {rows, k};
    }
}
