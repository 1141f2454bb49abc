package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * torch.nn.functional.max_pool2d(x, k, stride, padding) on fp32 [n, c, h, w]: the forward pass keeps, per
 * output, the flat input index of its window's first maximum (i32, same shape as y); the backward pass adds
 * each output's gradient there (atomics: windows overlap when stride < k).
 */
public final class MaxPool2d {
    private static final String OP = "max pool";

    private final OpContext ctx;
    private final int k;
    private final int stride;
    private final int pad;

    public MaxPool2d(OpContext ctx, int k, int stride, int pad) {
        if (k < 1 || stride < 1 || pad < 0 || 2 * pad > k) {
            throw new IllegalArgumentException(OP + ": kernel " + k + ", stride " + stride + ", padding " + pad
                    + "; need k, stride >= 1 and 0 <= padding <= k/2 (torch's rule)");
        }
        this.ctx = ctx;
        this.k = k;
        this.stride = stride;
        this.pad = pad;
    }

    public int[] outputShape(int[] x) {
        return new int[] {x[0], x[1], (x[2] + 2 * pad - k) / stride + 1, (x[3] + 2 * pad - k) / stride + 1};
    }

    public void forward(Tensor x, Tensor y, Tensor argmax, Stream s) {
        check(x, y);
        checkArgmax(argmax, x, y);
        long planes = (long) x.dim(0) * x.dim(1);
        int gridX = PlaneGrid.x(y.dim(2) * y.dim(3));
        ctx.kernels().launch2d("conv.cu", "maxpool_forward", gridX, PlaneGrid.y(planes, gridX), PlaneGrid.BLOCK, s, x, y,
                argmax, planes, x.dim(2), x.dim(3), y.dim(2), y.dim(3), k, stride, pad);
    }

    /**
     * y = max_pool2d(relu(x + bias[channel])), for inference (no argmax, so no backward): the bias and ReLU of a
     * convolution left undone ({@link Conv2d#forwardWithoutBias}) applied to the window maxima, which is exact because
     * t → max(0, t + b) never decreases, and saves a pass over the convolution's output.
     */
    public void forwardBiasRelu(Tensor x, Tensor bias, Tensor y, Stream s) {
        check(x, y);
        Shapes.require(OP, "bias", bias, x.dim(1));
        Shapes.requireDtype(OP, "bias", bias, DType.FP32);
        long planes = (long) x.dim(0) * x.dim(1);
        int gridX = PlaneGrid.x(y.dim(2) * y.dim(3));
        ctx.kernels().launch2d("conv.cu", "maxpool_bias_act_forward", gridX, PlaneGrid.y(planes, gridX), PlaneGrid.BLOCK,
                s, x, bias, y, planes, x.dim(1), x.dim(2), x.dim(3), y.dim(2), y.dim(3), k, stride, pad, 1);
    }

    /** dx is overwritten. */
    public void backward(Tensor x, Tensor argmax, Tensor dy, Tensor dx, Stream s) {
        check(x, dy);
        checkArgmax(argmax, x, dy);
        Shapes.requireSame(OP, "x", x, "dx", dx);
        Shapes.requireDtype(OP, "dx", dx, DType.FP32);
        Shapes.requireContiguous(OP, "dx", dx);
        dx.zero(s);
        ctx.kernels().launch("conv.cu", "maxpool_backward", ctx.kernels().gridFor(dy.numel(), 256), 256, s, dy, argmax,
                dx, dy.numel());
    }

    /** argmax holds flat indices into x as int32, one per output. */
    private static void checkArgmax(Tensor argmax, Tensor x, Tensor y) {
        if (x.numel() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape()) + ", "
                    + x.numel() + " elements, more than the 2^31 - 1 the int32 argmax indices address; split the batch");
        }
        Shapes.require(OP, "argmax", argmax, y.shape());
        Shapes.requireDtype(OP, "argmax", argmax, DType.I32);
    }

    private void check(Tensor x, Tensor y) {
        Shapes.requireRank(OP, "x", x, 4);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        if (x.dim(2) + 2 * pad < k || x.dim(3) + 2 * pad < k) {
            throw new IllegalArgumentException(OP + ": operand x has shape " + Shapes.format(x.shape())
                    + ", smaller than the kernel " + k + " with padding " + pad);
        }
        Shapes.require(OP, "y", y, outputShape(x.shape()));
        Shapes.requireDtype(OP, "y", y, DType.FP32);
        Shapes.requireContiguous(OP, "y", y);
    }
}
