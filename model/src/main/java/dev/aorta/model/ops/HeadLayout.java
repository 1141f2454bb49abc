package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.Arrays;

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

    /**
     * heads [parts, B, H, T, D] ← rows [B, T, rowStride]: fp32 rows into fp32 heads, or into bf16 / fp16 heads
     * rounded in the same pass (the 16-bit q, k, v of attention under autocast); 16-bit rows into heads of the
     * same dtype (the in-projection's 16-bit output).
     */
    public static void toHeads(OpContext ctx, Tensor rows, Tensor heads, int b, int t, int h, int d, int rowStride,
                        int offset, int parts, Stream s) {
        if (rows.dtype() != DType.FP32) {
            Shapes.requireDtype("head layout", "heads", heads, rows.dtype());
            launch(ctx, "rows16_to_heads16", rows, heads, b, t, h, d, rowStride, offset, parts, s);
            return;
        }
        if (heads.dtype() == DType.BF16 || heads.dtype() == DType.FP16) {
            launch(ctx, "rows_to_heads16", rows, heads, b, t, h, d, rowStride, offset, parts, s,
                    heads.dtype() == DType.FP16 ? 1 : 0);
            return;
        }
        launch(ctx, "rows_to_heads", rows, heads, b, t, h, d, rowStride, offset, parts, s);
    }

    /**
     * rows [B, T, rowStride] ← heads [parts, B, H, T, D] (fp32; only the heads' columns are written); rows fp32,
     * or bf16 / fp16, rounded in the same pass (the out-projection's 16-bit operand under autocast).
     */
    public static void toRows(OpContext ctx, Tensor heads, Tensor rows, int b, int t, int h, int d, int rowStride,
                       int offset, int parts, Stream s) {
        if (rows.dtype() == DType.BF16 || rows.dtype() == DType.FP16) {
            launch(ctx, "heads_to_rows16", heads, rows, b, t, h, d, rowStride, offset, parts, s,
                    rows.dtype() == DType.FP16 ? 1 : 0);
            return;
        }
        launch(ctx, "heads_to_rows", heads, rows, b, t, h, d, rowStride, offset, parts, s);
    }

    /** {@code extra}: arguments after the common ones (the 16-bit kernels' half flag). */
    private static void launch(OpContext ctx, String kernel, Tensor src, Tensor dst, int b, int t, int h, int d,
                               int rowStride, int offset, int parts, Stream s, Object... extra) {
        // 16-byte accesses need every row and head start on a 4-float boundary (buffers are 512-byte aligned)
        boolean vec = d % 4 == 0 && rowStride % 4 == 0 && offset % 4 == 0 && src.address() % 16 == 0
                && dst.address() % 16 == 0;
        long threads = (long) parts * b * h * t * d / (vec ? 4 : 1);
        Object[] args = {src, dst, b, t, h, d, rowStride, offset, parts, vec ? 1 : 0};
        if (extra.length > 0) {
            args = Arrays.copyOf(args, args.length + extra.length);
            System.arraycopy(extra, 0, args, 10, extra.length);
        }
        ctx.kernels().launch("layout.cu", kernel, ctx.kernels().gridFor(threads, 256), 256, s, args);
    }
}
