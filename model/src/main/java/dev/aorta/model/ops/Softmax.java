package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/** Softmax over the last dimension (fp32); the backward pass needs only the output. */
public final class Softmax {
    private static final int ROWS_PER_BLOCK = 4;

    private final OpContext ctx;

    public Softmax(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(Tensor x, Tensor y, Stream s) {
        int rows = check("softmax", "x", x, "y", y);
        ctx.kernels().launch("softmax.cu", "softmax_forward", blocks(rows), 32 * ROWS_PER_BLOCK, s, x, y, rows,
                x.dim(-1));
    }

    /** dx = y·(dy - Σ dy·y) per row. */
    public void backward(Tensor y, Tensor dy, Tensor dx, Stream s) {
        int rows = check("softmax backward", "y", y, "dy", dy);
        check("softmax backward", "y", y, "dx", dx);
        ctx.kernels().launch("softmax.cu", "softmax_backward", blocks(rows), 32 * ROWS_PER_BLOCK, s, y, dy, dx, rows,
                y.dim(-1));
    }

    private static int blocks(int rows) {
        return Math.max(1, (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    }

    private static int check(String op, String nameA, Tensor a, String nameB, Tensor b) {
        Shapes.requireDtype(op, nameA, a, DType.FP32);
        Shapes.requireDtype(op, nameB, b, DType.FP32);
        Shapes.requireSame(op, nameA, a, nameB, b);
        Shapes.requireContiguous(op, nameA, a);
        Shapes.requireContiguous(op, nameB, b);
        if (a.rank() < 1 || a.dim(-1) == 0) {
            throw new IllegalArgumentException(op + ": operand " + nameA + " has shape " + Shapes.format(a.shape())
                    + ", expected a non-empty last dimension");
        }
        return (int) (a.numel() / a.dim(-1));
    }
}
