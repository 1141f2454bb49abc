package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The transformer's MLP block, nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)) with
 * its state_dict names ("0.weight" … "2.bias" after the prefix): the first linear layer fuses bias and GELU in
 * one pass and keeps the pre-activation for the backward pass. Runs under the context's autocast like
 * {@link Linear}.
 */
public final class MlpBlock implements Layer {
    private static final String OP = "mlp block";

    private final OpContext ctx;
    private final Linear fc1;
    private final Linear fc2;
    private final int hidden;

    public MlpBlock(OpContext ctx, String prefix, int dim, int hidden, long seed) {
        this.ctx = ctx;
        this.hidden = hidden;
        this.fc1 = new Linear(ctx, prefix + "0", dim, hidden, true, seed);
        this.fc2 = new Linear(ctx, prefix + "2", hidden, dim, true, seed);
    }

    @Override
    public List<Parameter> parameters() {
        List<Parameter> p = new ArrayList<>(fc1.parameters());
        p.addAll(fc2.parameters());
        return p;
    }

    @Override
    public void close() {
        fc1.close();
        fc2.close();
    }

    /** What forward keeps for backward (pre-activation, hidden) and the hidden gradient's scratch. */
    public final class Activations implements AutoCloseable {
        final Tensor pre;
        final Tensor h;
        final Tensor dh;

        Activations(int[] leading) {
            int[] shape = java.util.Arrays.copyOf(leading, leading.length + 1);
            shape[leading.length] = hidden;
            pre = ctx.empty(OP, "pre-activation", DType.FP32, shape);
            h = ctx.empty(OP, "hidden", DType.FP32, shape);
            dh = ctx.empty(OP, "d hidden", DType.FP32, shape);
        }

        @Override
        public void close() {
            pre.close();
            h.close();
            dh.close();
        }
    }

    /** Activations for inputs [leading..., dim]. */
    public Activations activations(int... leading) {
        return new Activations(leading);
    }

    public void forward(Tensor x, Tensor y, Activations a, Stream s) {
        fc1.forwardGelu(x, a.pre, a.h, s);
        fc2.forward(a.h, y, s);
    }

    /** dx is overwritten; parameter gradients accumulate. */
    public void backward(Tensor x, Tensor dy, Tensor dx, Activations a, Stream s) {
        fc2.backward(a.h, dy, a.dh, s);
        fc1.backwardGelu(x, a.pre, a.dh, dx, s);
    }
}
