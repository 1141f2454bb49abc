package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * torch.nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation="gelu",
 * batch_first=True, norm_first=False) on x [batch, T, d_model], fp32:
 *
 * <pre>
 *   x1  = norm1(x + dropout(out_proj(attention(in_proj(x)))))
 *   out = norm2(x1 + dropout(linear2(dropout(gelu(linear1(x1))))))
 * </pre>
 *
 * Parameters carry PyTorch's state_dict names (after {@code prefix}), so a parameter file written here loads
 * into the torch module and back. The three dropouts draw from Philox offsets 4·offset + 0, 1, 2.
 * Under autocast the head-layout pass writes q, k, v in the autocast dtype (heads of at most 64) and attention
 * runs on the tensor cores, as torch's layer does. Not yet: dropout on the attention probabilities, which torch
 * applies too (with the same p); attention masks.
 */
public final class TransformerEncoderLayer implements Layer {
    private static final String OP = "transformer encoder layer";

    private final int dModel;
    private final int heads;
    private final int headDim;
    private final int ff;
    private final float dropout;
    private final OpContext ctx;
    private final Linear inProj;
    private final Linear outProj;
    private final Linear linear1;
    private final Linear linear2;
    private final LayerNorm norm1;
    private final LayerNorm norm2;
    private final Attention attention;
    private final Elementwise ew;

    public TransformerEncoderLayer(OpContext ctx, String prefix, int dModel, int heads, int ff, float dropout,
                                   long seed) {
        if (heads <= 0 || dModel % heads != 0 || dModel / heads > Attention.MAX_HEAD_DIM) {
            throw new IllegalArgumentException(OP + ": d_model " + dModel + " must split into " + heads
                    + " heads of at most " + Attention.MAX_HEAD_DIM);
        }
        this.ctx = ctx;
        this.dModel = dModel;
        this.heads = heads;
        this.headDim = dModel / heads;
        this.ff = ff;
        this.dropout = dropout;
        this.inProj = new Linear(ctx, prefix + "self_attn.in_proj_weight", prefix + "self_attn.in_proj_bias", dModel,
                3 * dModel, seed);
        this.outProj = new Linear(ctx, prefix + "self_attn.out_proj", dModel, dModel, true, seed);
        this.linear1 = new Linear(ctx, prefix + "linear1", dModel, ff, true, seed);
        this.linear2 = new Linear(ctx, prefix + "linear2", ff, dModel, true, seed);
        this.norm1 = new LayerNorm(ctx, prefix + "norm1", dModel, 1e-5f);
        this.norm2 = new LayerNorm(ctx, prefix + "norm2", dModel, 1e-5f);
        this.attention = new Attention(ctx);
        this.ew = new Elementwise(ctx);
        // MultiheadAttention's own initialisation: xavier_uniform_ input projection, zero biases
        inProj.weight().load(Init.uniform(seed, inProj.weight().name(), Init.xavierBound(dModel, 3 * dModel),
                3 * dModel, dModel));
        inProj.bias().load(Init.constant(0f, 3 * dModel));
        outProj.bias().load(Init.constant(0f, dModel));
    }

    /** In PyTorch's state_dict order. */
    @Override
    public List<Parameter> parameters() {
        List<Parameter> p = new ArrayList<>();
        for (Layer l : new Layer[] {inProj, outProj, linear1, linear2, norm1, norm2}) {
            p.addAll(l.parameters());
        }
        return p;
    }

    /**
     * The backward pass's scratch for one [batch, T]: gradients of the layer's inner activations, needed only while
     * one layer's backward runs. Layers of the same width whose backward passes run one after the other on one
     * stream can share one (a model with L layers then holds one set instead of L: llm.c's layout).
     */
    public final class Gradients implements AutoCloseable {
        final int batch;
        final int t;
        /** The layer that made it: the widths it was made for are that layer's. */
        private final TransformerEncoderLayer layer = TransformerEncoderLayer.this;
        private final List<AutoCloseable> all = new ArrayList<>();
        final Tensor ds2, df, dh, dx1, dr1, da, datt, delta, dqkvHeads, dq, dk, dv, dqkv;

        Gradients(int batch, int t) {
            this.batch = batch;
            this.t = t;
            ds2 = make("d second residual", batch, t, dModel);
            df = make("d feed-forward branch", batch, t, dModel);
            dh = make("d feed-forward hidden", batch, t, ff);
            dx1 = make("d norm1 output", batch, t, dModel);
            dr1 = make("d attention branch", batch, t, dModel);
            da = make("d merged heads", batch, t, dModel);
            datt = make("d attention output", batch, heads, t, headDim);
            delta = make("attention delta", batch, heads, t);
            dqkvHeads = make("dq, dk, dv by head", 3, batch, heads, t, headDim);
            dq = part(dqkvHeads, 0, batch, t);
            dk = part(dqkvHeads, 1, batch, t);
            dv = part(dqkvHeads, 2, batch, t);
            dqkv = make("d qkv", batch, t, 3 * dModel);
        }

        private Tensor make(String what, int... shape) {
            return keep(all, ctx.empty(OP, what, DType.FP32, shape));
        }

        @Override
        public void close() {
            closeAll(all);
        }
    }

    /** Backward scratch for [batch, T], to share between layers of this width (see {@link Gradients}). */
    public Gradients gradients(int batch, int t) {
        return new Gradients(batch, t);
    }

    /**
     * What the forward pass keeps for the backward pass for one [batch, T], and the backward pass's scratch: its
     * own, or a {@link Gradients} it shares with other layers.
     */
    public final class Activations implements AutoCloseable {
        final int batch;
        final int t;
        private final List<AutoCloseable> all = new ArrayList<>();
        final Tensor qkv, qkvHeads, q, k, v, att, lse, merged, r1, s1, x1, mean1, rstd1, pre, h, f, s2, mean2, rstd2;
        /** norm1's output rounded for linear1 under autocast. */
        final AutocastCopy x1Low;
        /** The GELU output rounded for linear2 under autocast (without dropout, which would change it after). */
        final AutocastCopy hLow;
        /**
         * q, k, v by head in 16 bits under autocast (heads of at most 64): the head-layout pass writes them
         * instead of the fp32 ones, for the tensor-core attention, as torch's layer hands SDPA 16-bit tensors.
         */
        final AutocastCopy qkvHeadsLow;
        private final Tensor[] qkvFp32;
        private Tensor lowStack;
        private Tensor[] lowParts;
        /** q, k, v as the last forward pass handed them to attention, for the backward pass. */
        private Tensor[] attentionQkv;
        final Tensor ds2, df, dh, dx1, dr1, da, datt, delta, dqkvHeads, dq, dk, dv, dqkv;

        Activations(int batch, int t, Gradients shared) {
            this.batch = batch;
            this.t = t;
            int rows = batch * t;
            qkv = make("qkv", batch, t, 3 * dModel);
            // q, k and v (and their gradients) consecutive, so one layout launch moves all three
            qkvHeads = make("q, k, v by head", 3, batch, heads, t, headDim);
            q = part(qkvHeads, 0, batch, t);
            k = part(qkvHeads, 1, batch, t);
            v = part(qkvHeads, 2, batch, t);
            qkvFp32 = new Tensor[] {q, k, v};
            qkvHeadsLow = new AutocastCopy(ctx, "q, k, v by head", 3, batch, heads, t, headDim);
            all.add(qkvHeadsLow);
            att = make("attention output", batch, heads, t, headDim);
            lse = make("attention logsumexp", batch, heads, t);
            merged = make("merged heads", batch, t, dModel);
            r1 = make("attention branch", batch, t, dModel);
            s1 = make("first residual", batch, t, dModel);
            x1 = make("norm1 output", batch, t, dModel);
            x1Low = new AutocastCopy(ctx, "norm1 output", batch, t, dModel);
            all.add(x1Low);
            mean1 = make("norm1 mean", rows);
            rstd1 = make("norm1 rstd", rows);
            pre = make("linear1 pre-activation", batch, t, ff);
            h = make("feed-forward hidden", batch, t, ff);
            hLow = new AutocastCopy(ctx, "feed-forward hidden", batch, t, ff);
            all.add(hLow);
            f = make("feed-forward branch", batch, t, dModel);
            s2 = make("second residual", batch, t, dModel);
            mean2 = make("norm2 mean", rows);
            rstd2 = make("norm2 rstd", rows);
            Gradients g = shared;
            if (g == null) {
                g = new Gradients(batch, t);
                all.add(g);
            } else if (g.batch != batch || g.t != t || g.layer.dModel != dModel || g.layer.ff != ff
                    || g.layer.heads != heads) {
                throw new IllegalArgumentException(OP + ": shared backward scratch is for [" + g.batch + ", " + g.t
                        + "] of width " + g.layer.dModel + ", MLP " + g.layer.ff + ", " + g.layer.heads
                        + " heads; this layer"
                        + " needs [" + batch + ", " + t + "] of width " + dModel + ", MLP " + ff + ", " + heads
                        + " heads");
            }
            ds2 = g.ds2;
            df = g.df;
            dh = g.dh;
            dx1 = g.dx1;
            dr1 = g.dr1;
            da = g.da;
            datt = g.datt;
            delta = g.delta;
            dqkvHeads = g.dqkvHeads;
            dq = g.dq;
            dk = g.dk;
            dv = g.dv;
            dqkv = g.dqkv;
        }

        private Tensor make(String what, int... shape) {
            return keep(all, ctx.empty(OP, what, DType.FP32, shape));
        }

        /**
         * The stacked q, k, v the forward pass writes by head, and remembers as attention's operands: the 16-bit
         * copy under autocast where the heads fit the tensor-core kernels, else the fp32 tensors.
         */
        private Tensor headsForAttention() {
            Tensor low = headDim <= Attention.TENSOR_CORE_MAX_HEAD_DIM ? qkvHeadsLow.get() : null;
            if (low == null) {
                attentionQkv = qkvFp32;
                return qkvHeads;
            }
            if (low != lowStack) {
                lowStack = low;
                lowParts = new Tensor[] {part(low, 0, batch, t), part(low, 1, batch, t), part(low, 2, batch, t)};
            }
            attentionQkv = lowParts;
            return low;
        }

        @Override
        public void close() {
            closeAll(all);
        }
    }

    /** Slice i of q, k, v (or their gradients) stacked in one [3, batch, heads, T, headDim] tensor. */
    private Tensor part(Tensor stacked, int i, int batch, int t) {
        return stacked.slice(0, i, 1).view(batch, heads, t, headDim);
    }

    private static Tensor keep(List<AutoCloseable> owned, Tensor x) {
        owned.add(x);
        return x;
    }

    private static void closeAll(List<AutoCloseable> owned) {
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Activations with their own backward scratch. */
    public Activations activations(int batch, int t) {
        return new Activations(batch, t, null);
    }

    /** Activations whose backward scratch is {@code shared} (made by a layer of the same width). */
    public Activations activations(int batch, int t, Gradients shared) {
        return new Activations(batch, t, shared);
    }

    public void forward(Tensor x, Tensor out, Activations a, long seed, long offset, Stream s) {
        forward(x, null, out, null, a, seed, offset, s);
    }

    /**
     * As {@link #forward(Tensor, Tensor, Activations, long, long, Stream)}; under autocast xLow (when not null)
     * is x already rounded to the autocast dtype (the previous layer's outLow: no cast before the
     * in-projection), and outLow (when not null) receives out rounded, for the next layer. Both must stay
     * unchanged until the backward pass.
     */
    public void forward(Tensor x, Tensor xLow, Tensor out, Tensor outLow, Activations a, long seed, long offset,
                        Stream s) {
        check(x, "out", out, a);
        inProj.forward(x, xLow, a.qkv, s);
        HeadLayout.toHeads(ctx, a.qkv, a.headsForAttention(), a.batch, a.t, heads, headDim, 3 * dModel, 0, 3, s);
        Tensor[] qkv = a.attentionQkv;
        attention.forward(qkv[0], qkv[1], qkv[2], a.att, a.lse, false, s);
        HeadLayout.toRows(ctx, a.att, a.merged, a.batch, a.t, heads, headDim, dModel, 0, 1, s);
        outProj.forward(a.merged, a.r1, s);
        drop(a.r1, a.r1, seed, 4 * offset, s);
        Tensor x1Low = a.x1Low.get();
        norm1.forwardResidual(x, a.r1, a.s1, a.x1, x1Low, a.mean1, a.rstd1, s);
        Tensor hLow = dropout == 0 ? a.hLow.get() : null;
        // with the 16-bit copy and no dropout, linear2 reads only the copy (forward and backward): h stays unwritten
        linear1.forwardGelu(a.x1, x1Low, a.pre, hLow != null ? null : a.h, hLow, s);
        drop(a.h, a.h, seed, 4 * offset + 1, s);
        linear2.forward(a.h, hLow, a.f, s);
        drop(a.f, a.f, seed, 4 * offset + 2, s);
        norm2.forwardResidual(a.x1, a.f, a.s2, out, outLow, a.mean2, a.rstd2, s);
    }

    /** dx is overwritten; parameter gradients accumulate. Same seed and offset as the forward pass. */
    public void backward(Tensor x, Tensor dout, Tensor dx, Activations a, long seed, long offset, Stream s) {
        check(x, "dout", dout, a);
        Shapes.requireSame(OP, "x", x, "dx", dx);
        norm2.backward(a.s2, a.mean2, a.rstd2, dout, a.ds2, s);
        // s2 = x1 + f: ds2 reaches both
        Tensor df = drop(a.ds2, a.df, seed, 4 * offset + 2, s);
        linear2.backward(a.h, df, a.dh, s);
        drop(a.dh, a.dh, seed, 4 * offset + 1, s);
        linear1.backwardGelu(a.x1, a.pre, a.dh, a.dx1, s);
        // x1 feeds linear1 and the second residual: its gradient is dx1 + ds2, summed inside norm1's backward
        // s1 = x + r1: ds1 reaches both. It goes straight into dx (x's gradient by the residual path), and the
        // in-projection's backward adds the attention path's share to it
        norm1.backward(a.s1, a.mean1, a.rstd1, a.dx1, a.ds2, dx, s);
        Tensor dr1 = drop(dx, a.dr1, seed, 4 * offset, s);
        outProj.backward(a.merged, dr1, a.da, s);
        HeadLayout.toHeads(ctx, a.da, a.datt, a.batch, a.t, heads, headDim, dModel, 0, 1, s);
        Tensor[] qkv = a.attentionQkv;
        if (qkv == null) {
            throw new IllegalStateException(OP + ": backward before any forward pass with these activations");
        }
        attention.backward(qkv[0], qkv[1], qkv[2], a.att, a.lse, a.datt, a.delta, a.dq, a.dk, a.dv, false, s);
        HeadLayout.toRows(ctx, a.dqkvHeads, a.dqkv, a.batch, a.t, heads, headDim, 3 * dModel, 0, 3, s);
        inProj.backward(x, a.dqkv, dx, true, s);
    }

    /** Parameters, the linear layers' 16-bit scratch and the attention's score scratch. */
    @Override
    public void close() {
        for (Layer l : new Layer[] {inProj, outProj, linear1, linear2, norm1, norm2}) {
            l.close();
        }
        attention.close();
    }

    /** Dropout from {@code in} into {@code out}, or {@code in} itself when p = 0 (no launch). */
    private Tensor drop(Tensor in, Tensor out, long seed, long offset, Stream s) {
        if (dropout == 0) {
            return in;
        }
        ew.dropout(in, out, dropout, seed, offset, s);
        return out;
    }

    private void check(Tensor x, String yName, Tensor y, Activations a) {
        Shapes.require(OP, "x", x, a.batch, a.t, dModel);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        Shapes.requireSame(OP, "x", x, yName, y);
    }
}
