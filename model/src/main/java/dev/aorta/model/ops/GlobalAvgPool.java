package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/** Global average pooling, adaptive_avg_pool2d(x, 1) flattened: fp32 [n, c, h, w] → [n, c]. */
public final class GlobalAvgPool {
    private static final String OP = "global average pool";

    private final OpContext ctx;

    public GlobalAvgPool(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(Tensor x, Tensor y, Stream s) {
        long planes = check(x, "y", y);
        ctx.kernels().launch("conv.cu", "global_avgpool_forward", (int) ((planes + 3) / 4), 128, s, x, null, y, planes,
                x.dim(1), x.dim(2) * x.dim(3), 0);
    }

    /**
     * y = the plane means of relu(x + bias[channel]), for inference: the bias and ReLU of a convolution left undone
     * ({@link Conv2d#forwardWithoutBias}) applied as the planes are read, which saves a pass over its output.
     */
    public void forwardBiasRelu(Tensor x, Tensor bias, Tensor y, Stream s) {
        long planes = check(x, "y", y);
        Shapes.require(OP, "bias", bias, x.dim(1));
        Shapes.requireDtype(OP, "bias", bias, DType.FP32);
        ctx.kernels().launch("conv.cu", "global_avgpool_forward", (int) ((planes + 3) / 4), 128, s, x, bias, y, planes,
                x.dim(1), x.dim(2) * x.dim(3), 1);
    }

    /** dx (overwritten) = dy / (h·w) over each plane. */
    public void backward(Tensor x, Tensor dy, Tensor dx, Stream s) {
        long planes = check(x, "dy", dy);
        Shapes.requireSame(OP, "x", x, "dx", dx);
        Shapes.requireDtype(OP, "dx", dx, DType.FP32);
        Shapes.requireContiguous(OP, "dx", dx);
        ctx.kernels().launch("conv.cu", "global_avgpool_backward", ctx.kernels().gridFor(x.numel(), 256), 256, s, dy,
                dx, planes, x.dim(2) * x.dim(3));
    }

    private static long check(Tensor x, String yName, Tensor y) {
        Shapes.requireRank(OP, "x", x, 4);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        Shapes.require(OP, yName, y, x.dim(0), x.dim(1));
        Shapes.requireDtype(OP, yName, y, DType.FP32);
        Shapes.requireContiguous(OP, yName, y);
        return (long) x.dim(0) * x.dim(1);
    }
}
