package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.Layer;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefLayerNorm;
import dev.aorta.model.reference.RefLinear;

import java.util.ArrayList;
import java.util.List;

/**
 * The pre-norm residual MLP block of fsdp_tp and activation_ckpt: y = x + fc2(act(fc1(LayerNorm(x)))), act GELU or
 * ReLU, forward and backward on a caller-given stream from the model module's ops, and its float64 reference for
 * one row (every op of the block is row-wise, so sampled rows check the whole tensor's computation).
 */
final class ResidualMlp implements Layer {
    static final float EPS = 1e-5f;

    final LayerNorm norm;
    final Linear fc1;
    final Linear fc2;
    private final boolean relu;
    private final int dim;
    private final int inner;
    private final OpContext ops;
    private final Elementwise elementwise;
    private double[][] host;

    ResidualMlp(OpContext ops, String prefix, int dim, int inner, boolean relu, long seed) {
        this.ops = ops;
        this.dim = dim;
        this.inner = inner;
        this.relu = relu;
        norm = new LayerNorm(ops, prefix + ".ln", dim, EPS);
        fc1 = new Linear(ops, prefix + ".fc1", dim, inner, true, seed);
        fc2 = new Linear(ops, prefix + ".fc2", inner, dim, true, seed);
        elementwise = new Elementwise(ops);
    }

    /** What one forward over some rows keeps for backward, and backward's scratch. */
    final class Activations implements AutoCloseable {
        final Tensor normed;
        final Tensor mean;
        final Tensor rstd;
        final Tensor pre;
        final Tensor act;
        final Tensor down;
        final Tensor dact;
        final Tensor dpre;
        final Tensor dnormed;

        Activations(int rows) {
            normed = ops.empty("residual mlp", "normed", DType.FP32, rows, dim);
            mean = ops.empty("residual mlp", "mean", DType.FP32, rows);
            rstd = ops.empty("residual mlp", "rstd", DType.FP32, rows);
            pre = ops.empty("residual mlp", "pre-activation", DType.FP32, rows, inner);
            act = ops.empty("residual mlp", "activation", DType.FP32, rows, inner);
            down = ops.empty("residual mlp", "fc2 output", DType.FP32, rows, dim);
            dact = ops.empty("residual mlp", "d activation", DType.FP32, rows, inner);
            dpre = relu ? ops.empty("residual mlp", "d pre-activation", DType.FP32, rows, inner) : null;
            dnormed = ops.empty("residual mlp", "d normed", DType.FP32, rows, dim);
        }

        @Override
        public void close() {
            for (Tensor t : new Tensor[] {normed, mean, rstd, pre, act, down, dact, dpre, dnormed}) {
                if (t != null) {
                    t.close();
                }
            }
        }
    }

    Activations activations(int rows) {
        return new Activations(rows);
    }

    void forward(Tensor x, Tensor y, Activations a, Stream s) {
        norm.forward(x, a.normed, a.mean, a.rstd, s);
        if (relu) {
            fc1.forward(a.normed, a.pre, s);
            elementwise.relu(a.pre, a.act, s);
        } else {
            fc1.forwardGelu(a.normed, a.pre, a.act, s);
        }
        fc2.forward(a.act, a.down, s);
        elementwise.residualAdd(x, a.down, y, s);
    }

    /** dx is overwritten (dx = dy + the branch's input gradient); parameter gradients accumulate. */
    void backward(Tensor x, Tensor dy, Tensor dx, Activations a, Stream s) {
        backward(x, dy, dx, a, true, s);
    }

    /**
     * dx as {@link #backward(Tensor, Tensor, Tensor, Activations, Stream)}, no parameter gradient touched (torch's
     * autograd.grad with respect to the input alone: no weight-gradient GEMMs, bias or LayerNorm reductions).
     */
    void backwardInput(Tensor x, Tensor dy, Tensor dx, Activations a, Stream s) {
        backward(x, dy, dx, a, false, s);
    }

    /**
     * The parameter gradients (accumulated) that {@link #backwardInput} left out, from the same x, dy and
     * activations (unchanged since), when the caller chooses: fsdp_tp runs them after the layer's input gradient
     * has gone on to the previous layer, whose backward then overlaps them.
     */
    void paramGrads(Tensor x, Tensor dy, Activations a, Stream s) {
        fc2.paramGrads(a.act, dy, s);
        fc1.paramGrads(a.normed, relu ? a.dpre : a.dact, s);
        norm.paramGrads(x, a.mean, a.rstd, a.dnormed, s);
    }

    private void backward(Tensor x, Tensor dy, Tensor dx, Activations a, boolean paramGrads, Stream s) {
        if (paramGrads) {
            fc2.backward(a.act, dy, a.dact, s);
        } else {
            fc2.backwardInput(dy, a.dact, s);
        }
        if (relu) {
            elementwise.reluBackward(a.pre, a.dact, a.dpre, s);
            if (paramGrads) {
                fc1.backward(a.normed, a.dpre, a.dnormed, s);
            } else {
                fc1.backwardInput(a.dpre, a.dnormed, s);
            }
        } else if (paramGrads) {
            fc1.backwardGelu(a.normed, a.pre, a.dact, a.dnormed, s);
        } else {
            fc1.backwardGeluInput(a.pre, a.dact, a.dnormed, s);
        }
        if (paramGrads) {
            norm.backward(x, a.mean, a.rstd, a.dnormed, dx, s);
        } else {
            norm.backwardInput(x, a.mean, a.rstd, a.dnormed, null, dx, s);
        }
        elementwise.accumulate(dx, dy, s);
    }

    @Override
    public List<Parameter> parameters() {
        List<Parameter> all = new ArrayList<>(norm.parameters());
        all.addAll(fc1.parameters());
        all.addAll(fc2.parameters());
        return all;
    }

    /** float64 forward of one row. */
    double[] referenceForward(double[] x) {
        double[][] p = hostParameters();
        double[] act = activation(x, p);
        double[] down = RefLinear.forward(act, p[4], p[5], 1, inner, dim);
        return RefElementwise.add(x, down);
    }

    /** float64 input gradient of one row, given the output gradient dy. */
    double[] referenceBackward(double[] x, double[] dy) {
        double[][] p = hostParameters();
        double[] normed = RefLayerNorm.forward(x, p[0], p[1], 1, dim, EPS);
        double[] pre = RefLinear.forward(normed, p[2], p[3], 1, dim, inner);
        double[] act = relu ? RefElementwise.relu(pre) : RefElementwise.gelu(pre);
        double[] dact = RefLinear.backward(act, p[4], dy, 1, inner, dim).dx();
        double[] dpre = relu ? RefElementwise.reluBackward(pre, dact) : RefElementwise.geluBackward(pre, dact);
        double[] dnormed = RefLinear.backward(normed, p[2], dpre, 1, dim, inner).dx();
        double[] dx = RefLayerNorm.backward(x, p[0], dnormed, 1, dim, EPS).dx();
        return RefElementwise.add(dx, dy);
    }

    private double[] activation(double[] x, double[][] p) {
        double[] normed = RefLayerNorm.forward(x, p[0], p[1], 1, dim, EPS);
        double[] pre = RefLinear.forward(normed, p[2], p[3], 1, dim, inner);
        return relu ? RefElementwise.relu(pre) : RefElementwise.gelu(pre);
    }

    /** γ, β, W1, b1, W2, b2 read back once (after the device is idle). */
    private double[][] hostParameters() {
        if (host == null) {
            List<Parameter> p = parameters();
            host = new double[p.size()][];
            for (int i = 0; i < p.size(); i++) {
                host[i] = Reference.doubles(p.get(i).value().toFloats());
            }
        }
        return host;
    }

    @Override
    public void close() {
        norm.close();
        fc1.close();
        fc2.close();
    }
}
