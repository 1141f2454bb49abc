package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

/**
 * Multi-head attention's layout changes (kernels in layout.cu): projections write rows [B, T, rowStride] in
 * which part p's head h sits at column offset + p·H·D + h·D; attention wants each head contiguous,
 * [parts, B, H, T, D]. With parts = 3 the fused q/k/v projection is split into q, k and v in one launch, and
 * their gradients are merged back in one. Public for the workloads' tensor-parallel attention (fsdp_tp), which
 * projects only its own heads.
 */
public final class HeadLayout {
    private HeadLayout() {
    }

    /** heads [parts, B, H, T, D] ← rows [B, T, rowStride]. */
    public static void toHeads(OpContext ctx, Tensor rows, Tensor heads, int b, int t, int h, int d, int rowStride,
                        int offset, int parts, Stream s) {
        launch(ctx, "rows_to_heads", rows, heads, b, t, h, d, rowStride, offset, parts, s);
    }

    /** rows [B, T, rowStride] ← heads [parts, B, H, T, D] (only the heads' columns are written). */
    public static void toRows(OpContext ctx, Tensor heads, Tensor rows, int b, int t, int h, int d, int rowStride,
                       int offset, int parts, Stream s) {
        launch(ctx, "heads_to_rows", heads, rows, b, t, h, d, rowStride, offset, parts, s);
    }

    private static void launch(OpContext ctx, String kernel, Tensor src, Tensor dst, int b, int t, int h, int d,
                               int rowStride, int offset, int parts, Stream s) {
        // 16-byte accesses need every row and head start on a 4-float boundary (buffers are 512-byte aligned)
        boolean vec = d % 4 == 0 && rowStride % 4 == 0 && offset % 4 == 0 && src.address() % 16 == 0
                && dst.address() % 16 == 0;
        long threads = (long) parts * b * h * t * d / (vec ? 4 : 1);
        ctx.kernels().launch("layout.cu", kernel, ctx.kernels().gridFor(threads, 256), 256, s, src, dst, b, t, h, d,
                rowStride, offset, parts, vec ? 1 : 0);
    }
}
