package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * torch.cat(inputs, dim=-1) on fp32 tensors [..., c_i] with the same leading dimensions: one copy launch per
 * input into its column block of out [..., Σ c_i]; the backward pass copies each block of dout back out.
 */
public final class Concat {
    private static final String OP = "concat";

    private final OpContext ctx;

    public Concat(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(List<Tensor> inputs, Tensor out, Stream s) {
        long rows = check(inputs, "out", out);
        int offset = 0;
        for (Tensor in : inputs) {
            int cols = in.dim(-1);
            ctx.kernels().launch("layout.cu", "columns_into", ctx.kernels().gridFor(in.numel(), 256), 256, s, in, out,
                    rows, cols, out.dim(-1), offset);
            offset += cols;
        }
    }

    /** dinputs[i] (overwritten) = the column block of dout that inputs[i] filled. */
    public void backward(Tensor dout, List<Tensor> dinputs, Stream s) {
        long rows = check(dinputs, "dout", dout);
        int offset = 0;
        for (Tensor d : dinputs) {
            int cols = d.dim(-1);
            ctx.kernels().launch("layout.cu", "columns_from", ctx.kernels().gridFor(d.numel(), 256), 256, s, dout, d,
                    rows, cols, dout.dim(-1), offset);
            offset += cols;
        }
    }

    /** Same leading dimensions everywhere and out's last dimension the sum; returns the row count. */
    private static long check(List<Tensor> parts, String outName, Tensor out) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException(OP + ": no tensors to concatenate");
        }
        int[] lead = parts.getFirst().shape();
        int total = 0;
        for (int i = 0; i < parts.size(); i++) {
            Tensor t = parts.get(i);
            String name = "input " + i;
            Shapes.requireDtype(OP, name, t, DType.FP32);
            Shapes.requireContiguous(OP, name, t);
            int[] expected = t.shape().clone();
            if (expected.length != lead.length) {
                throw new IllegalArgumentException(OP + ": operand " + name + " has shape " + Shapes.format(t.shape())
                        + ", expected rank " + lead.length + " like input 0 " + Shapes.format(lead));
            }
            System.arraycopy(lead, 0, expected, 0, lead.length - 1);
            Shapes.require(OP, name, t, expected);
            total += t.dim(-1);
        }
        int[] outShape = lead.clone();
        outShape[outShape.length - 1] = total;
        Shapes.require(OP, outName, out, outShape);
        Shapes.requireDtype(OP, outName, out, DType.FP32);
        Shapes.requireContiguous(OP, outName, out);
        return out.numel() / Math.max(1, total);
    }
}
