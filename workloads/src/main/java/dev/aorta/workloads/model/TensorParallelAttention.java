package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Attention;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.HeadLayout;
import dev.aorta.model.ops.Layer;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.reference.RefAttention;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefLayerNorm;
import dev.aorta.model.reference.RefLinear;

import java.util.ArrayList;
import java.util.List;

/**
 * The attention half of fsdp_tp's pre-norm block, x1 = x + out_proj(attention(in_proj(LayerNorm(x)))) with
 * nn.MultiheadAttention's layout (fused q/k/v projection, no mask), split over a tensor-parallel group as Megatron
 * splits it: rank r of a group of p holds heads [r·H/p, (r+1)·H/p), the rows of the fused in-projection that make
 * their q, k and v (column-parallel) and the columns of the out-projection that read them (row-parallel). Each rank
 * computes a partial out-projection; their sum over the group (an all-reduce, by the caller, between
 * {@link #forwardPartial} and {@link #forwardResidual}) is the attention output. Backward mirrors it: the partial
 * gradients of LayerNorm's output are all-reduced between {@link #backwardPartial} and {@link #backwardResidual}.
 * The split is {@link HeadSplit}'s. The full weights are made on the host from fixed seeds (the same on every
 * rank), so the float64 reference runs the whole unsplit layer.
 */
final class TensorParallelAttention implements Layer {
    private static final float EPS = 1e-5f;

    private final OpContext ops;
    private final int dim;
    private final int heads;
    private final int localHeads;
    private final int headDim;
    final LayerNorm norm;
    private final Linear inProj;
    private final Linear outProj;
    private final Attention attention;
    private final Elementwise elementwise;
    /** The unsplit parameters: W_qkv [3·dim, dim], b_qkv [3·dim], W_o [dim, dim], b_o [dim]. */
    private final double[] wQkv;
    private final double[] bQkv;
    private final double[] wOut;
    private final double[] bOut;

    TensorParallelAttention(OpContext ops, String prefix, int dim, int heads, int tpRank, int tpSize, long seed) {
        if (dim % heads != 0 || dim / heads > Attention.MAX_HEAD_DIM) {
            throw new IllegalArgumentException(prefix + ": " + dim + " features do not split into " + heads
                    + " heads of at most " + Attention.MAX_HEAD_DIM + " features");
        }
        this.ops = ops;
        this.dim = dim;
        this.heads = heads;
        this.localHeads = heads / tpSize;
        this.headDim = dim / heads;
        int local = localHeads * headDim;
        // nn.MultiheadAttention: xavier-uniform in-projection; the biases are random here (its are zero) so that
        // the check sees them
        float[] wq = Init.uniform(seed, prefix + "in_proj_weight", Init.xavierBound(dim, 3 * dim), 3 * dim, dim)
                .toFloats();
        float[] bq = Init.uniform(seed, prefix + "in_proj_bias", Init.linearBound(dim), 3 * dim).toFloats();
        float[] wo = Init.uniform(seed, prefix + "out_proj.weight", Init.linearBound(dim), dim, dim).toFloats();
        float[] bo = Init.uniform(seed, prefix + "out_proj.bias", Init.linearBound(dim), dim).toFloats();
        wQkv = Reference.doubles(wq);
        bQkv = Reference.doubles(bq);
        wOut = Reference.doubles(wo);
        bOut = Reference.doubles(bo);

        norm = new LayerNorm(ops, prefix + "ln", dim, EPS);
        inProj = new Linear(ops, prefix + "in_proj", dim, 3 * local, true, seed);
        outProj = new Linear(ops, prefix + "out_proj", local, dim, true, seed);
        elementwise = new Elementwise(ops);
        attention = new Attention(ops);
        HeadSplit split = new HeadSplit(dim, heads, tpSize);
        inProj.weight().load(host(split.inProjWeight(wq, tpRank), 3 * local, dim));
        inProj.bias().load(host(split.inProjBias(bq, tpRank), 3 * local));
        outProj.weight().load(host(split.outProjWeight(wo, tpRank), dim, local));
        outProj.bias().load(host(split.outProjBias(bo, tpRank), dim));
    }

    private static HostTensor host(float[] values, int... shape) {
        return HostTensor.ofFloats(DType.FP32, shape, values);
    }

    /** What one forward over [batch, t] keeps for backward, the tensors the collectives move, and scratch. */
    final class Activations implements AutoCloseable {
        private final List<Tensor> all = new ArrayList<>();
        final int batch;
        final int t;
        final Tensor normed, mean, rstd, qkv, qkvHeads, q, k, v, att, lse, merged;
        /** This rank's share of the attention output; {@link #output} = the sum over the group. */
        final Tensor partial, output;
        final Tensor dMerged, dAtt, delta, dQkvHeads, dq, dk, dv, dQkv;
        /** This rank's share of the gradient of LayerNorm's output; {@link #dNormed} = the sum over the group. */
        final Tensor dNormedPartial, dNormed;

        Activations(int batch, int t) {
            this.batch = batch;
            this.t = t;
            int rows = batch * t;
            int local = localHeads * headDim;
            normed = make("normed", rows, dim);
            mean = make("mean", rows);
            rstd = make("rstd", rows);
            qkv = make("qkv of this rank's heads", rows, 3 * local);
            qkvHeads = make("q, k, v by head", 3, batch, localHeads, t, headDim);
            q = part(qkvHeads, 0);
            k = part(qkvHeads, 1);
            v = part(qkvHeads, 2);
            att = make("attention output", batch, localHeads, t, headDim);
            lse = make("attention logsumexp", batch, localHeads, t);
            merged = make("merged heads", rows, local);
            partial = make("partial attention output", rows, dim);
            output = make("attention output summed over the group", rows, dim);
            dMerged = make("d merged heads", rows, local);
            dAtt = make("d attention output", batch, localHeads, t, headDim);
            delta = make("attention delta", batch, localHeads, t);
            dQkvHeads = make("dq, dk, dv by head", 3, batch, localHeads, t, headDim);
            dq = part(dQkvHeads, 0);
            dk = part(dQkvHeads, 1);
            dv = part(dQkvHeads, 2);
            dQkv = make("d qkv", rows, 3 * local);
            dNormedPartial = make("partial d normed", rows, dim);
            dNormed = make("d normed summed over the group", rows, dim);
        }

        private Tensor part(Tensor stacked, int i) {
            return stacked.slice(0, i, 1).view(batch, localHeads, t, headDim);
        }

        private Tensor make(String what, int... shape) {
            Tensor x = ops.empty("tensor-parallel attention", what, DType.FP32, shape);
            all.add(x);
            return x;
        }

        @Override
        public void close() {
            all.forEach(Tensor::close);
        }
    }

    Activations activations(int batch, int t) {
        return new Activations(batch, t);
    }

    /** a.partial = this rank's heads' share of the attention output for x [batch·t, dim]. */
    void forwardPartial(Tensor x, Activations a, Stream s) {
        int local = localHeads * headDim;
        norm.forward(x, a.normed, a.mean, a.rstd, s);
        inProj.forward(a.normed, a.qkv, s);
        HeadLayout.toHeads(ops, a.qkv, a.qkvHeads, a.batch, a.t, localHeads, headDim, 3 * local, 0, 3, s);
        attention.forward(a.q, a.k, a.v, a.att, a.lse, false, s);
        HeadLayout.toRows(ops, a.att, a.merged, a.batch, a.t, localHeads, headDim, local, 0, 1, s);
        outProj.forward(a.merged, a.partial, s);
    }

    /** x1 = x + a.output (once the group's partial outputs are summed into it). */
    void forwardResidual(Tensor x, Activations a, Tensor x1, Stream s) {
        elementwise.residualAdd(x, a.output, x1, s);
    }

    /**
     * a.dNormedPartial = this rank's share of the gradient of LayerNorm's output, given dx1. The input gradient
     * alone: fsdp_tp reads no gradient of the attention's parameters (they are neither sharded nor reduced, and no
     * optimizer steps them), so none is computed (8.6 of a layer's 92 GFLOP at the default size).
     */
    void backwardPartial(Tensor dx1, Activations a, Stream s) {
        int local = localHeads * headDim;
        outProj.backwardInput(dx1, a.dMerged, s);
        HeadLayout.toHeads(ops, a.dMerged, a.dAtt, a.batch, a.t, localHeads, headDim, local, 0, 1, s);
        attention.backward(a.q, a.k, a.v, a.att, a.lse, a.dAtt, a.delta, a.dq, a.dk, a.dv, false, s);
        HeadLayout.toRows(ops, a.dQkvHeads, a.dQkv, a.batch, a.t, localHeads, headDim, 3 * local, 0, 3, s);
        inProj.backwardInput(a.dQkv, a.dNormedPartial, s);
    }

    /**
     * dx (overwritten) = dx1 (the residual path) + LayerNorm's backward of a.dNormed (once summed over the group);
     * γ's and β's gradients untouched, as in {@link #backwardPartial}.
     */
    void backwardResidual(Tensor x, Tensor dx1, Activations a, Tensor dx, Stream s) {
        norm.backwardInput(x, a.mean, a.rstd, a.dNormed, null, dx, s);
        elementwise.accumulate(dx, dx1, s);
    }

    /**
     * The unsplit layer in float64 with this layer's parameters read back now (LayerNorm's γ and β live on the
     * device), so that the returned reference touches no device memory and may run on any thread.
     */
    HostReference hostReference() {
        List<Parameter> ln = norm.parameters();
        return new HostReference(Reference.doubles(ln.get(0).value().toFloats()),
                Reference.doubles(ln.get(1).value().toFloats()));
    }

    final class HostReference {
        private final double[] gamma;
        private final double[] beta;

        private HostReference(double[] gamma, double[] beta) {
            this.gamma = gamma;
            this.beta = beta;
        }

        /** x1 of one sequence x [t, dim]. */
        double[] forward(double[] x, int t) {
            return new Pass(x, t).x1;
        }

        /** The input gradient of one sequence x [t, dim], given dx1. */
        double[] backward(double[] x, double[] dx1, int t) {
            Pass p = new Pass(x, t);
            double[] dMerged = RefLinear.backward(p.merged, wOut, dx1, t, dim, dim).dx();
            RefAttention.Grads g = RefAttention.backward(p.q, p.k, p.v, heads(dMerged, t, dim, 0), heads, t, headDim,
                    false);
            double[] dQkv = new double[t * 3 * dim];
            rows(g.dq(), t, 3 * dim, 0, dQkv);
            rows(g.dk(), t, 3 * dim, dim, dQkv);
            rows(g.dv(), t, 3 * dim, 2 * dim, dQkv);
            double[] dNormed = RefLinear.backward(p.normed, wQkv, dQkv, t, dim, 3 * dim).dx();
            double[] dx = RefLayerNorm.backward(x, gamma, dNormed, t, dim, EPS).dx();
            return RefElementwise.add(dx, dx1);
        }

        /** The forward's intermediate values of one sequence, every head. */
        private final class Pass {
            final double[] normed;
            final double[] q;
            final double[] k;
            final double[] v;
            final double[] merged;
            final double[] x1;

            Pass(double[] x, int t) {
                normed = RefLayerNorm.forward(x, gamma, beta, t, dim, EPS);
                double[] qkv = RefLinear.forward(normed, wQkv, bQkv, t, dim, 3 * dim);
                q = heads(qkv, t, 3 * dim, 0);
                k = heads(qkv, t, 3 * dim, dim);
                v = heads(qkv, t, 3 * dim, 2 * dim);
                merged = new double[t * dim];
                rows(RefAttention.forward(q, k, v, heads, t, headDim, false), t, dim, 0, merged);
                x1 = RefElementwise.add(x, RefLinear.forward(merged, wOut, bOut, t, dim, dim));
            }
        }
    }

    /** [t, rowStride] columns offset + h·D .. + D → [heads, t, D]. */
    private double[] heads(double[] rowMajor, int t, int rowStride, int offset) {
        double[] out = new double[heads * t * headDim];
        for (int h = 0; h < heads; h++) {
            for (int r = 0; r < t; r++) {
                System.arraycopy(rowMajor, r * rowStride + offset + h * headDim, out, (h * t + r) * headDim, headDim);
            }
        }
        return out;
    }

    /** The inverse of {@link #heads}, into {@code rowMajor}. */
    private void rows(double[] byHead, int t, int rowStride, int offset, double[] rowMajor) {
        for (int h = 0; h < heads; h++) {
            for (int r = 0; r < t; r++) {
                System.arraycopy(byHead, (h * t + r) * headDim, rowMajor, r * rowStride + offset + h * headDim, headDim);
            }
        }
    }

    @Override
    public List<Parameter> parameters() {
        List<Parameter> all = new ArrayList<>(norm.parameters());
        all.addAll(inProj.parameters());
        all.addAll(outProj.parameters());
        return all;
    }

    @Override
    public void close() {
        norm.close();
        inProj.close();
        outProj.close();
        attention.close();
    }
}
