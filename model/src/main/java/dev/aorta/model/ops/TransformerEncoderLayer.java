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
    private final Elementwise ew;

    public TransformerEncoderLayer(OpContext ctx, String prefix, int dModel, int heads, int ff, float dropout,
                                   long seed) {
        this(ctx, prefix, dModel, heads, ff, dropout, seed, null);
    }

    /**
     * As {@link #TransformerEncoderLayer(OpContext, String, int, int, int, float, long)}, the four linear layers
     * rounding their autocast dy into {@code sharedDy} (a model's, see {@link LowDyScratch}; null: their own).
     */
    public TransformerEncoderLayer(OpContext ctx, String prefix, int dModel, int heads, int ff, float dropout,
                                   long seed, LowDyScratch sharedDy) {
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
                3 * dModel, seed, sharedDy);
        this.outProj = new Linear(ctx, prefix + "self_attn.out_proj", dModel, dModel, true, seed, sharedDy);
        this.linear1 = new Linear(ctx, prefix + "linear1", dModel, ff, true, seed, sharedDy);
        this.linear2 = new Linear(ctx, prefix + "linear2", ff, dModel, true, seed, sharedDy);
        this.norm1 = new LayerNorm(ctx, prefix + "norm1", dModel, 1e-5f);
        this.norm2 = new LayerNorm(ctx, prefix + "norm2", dModel, 1e-5f);
        this.ew = new Elementwise(ctx);
        // MultiheadAttention's own initialisation: xavier_uniform_ input projection, zero biases
        inProj.weight().init(() -> Init.uniform(seed, inProj.weight().name(), Init.xavierBound(dModel, 3 * dModel),
                3 * dModel, dModel));
        inProj.bias().init(() -> Init.constant(0f, 3 * dModel));
        outProj.bias().init(() -> Init.constant(0f, dModel));
    }

    /** The widest linear layer's output features: what a shared {@link LowDyScratch} needs per row. */
    public int widestLinearOut() {
        return Math.max(3 * dModel, Math.max(ff, dModel));
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
     * What one layer's forward or backward pass needs only while it runs, for one [batch, T]: the attention (its
     * score scratch), the forward pass's intermediates that the backward pass does not read, and the gradients of
     * the layer's inner activations. Layers of the same widths whose passes run one after the other on one stream
     * can share one (a model with L layers then holds one set instead of L: llm.c's layout).
     *
     * <p>Buffers whose lifetimes do not overlap share memory. Forward: qkv (in-projection to head layout) with the
     * GELU output h (linear1 to linear2), the merged heads (head layout to out-projection) with norm1's output x1
     * (norm1 to norm2), the attention branch r1 (out-projection to norm1) with the feed-forward branch f (linear2
     * to norm2). Backward: d qkv with dh (dead after linear1's backward), the d merged heads with df (dead after
     * linear2's), d attention output with dx1 (dead after norm1's), dq, dk, dv by head with d s2, df and d r1 (all
     * three read before the attention's backward pass, which writes dq, dk, dv). And the forward buffers with the
     * backward ones: all are dead when the pass that wrote them ends (what a backward pass reads of the forward
     * pass is in the layer's {@link Activations}), so the two sets lie in one block, as large as the larger.
     *
     * <p>Between layer passes the block is idle: a model may put there what lives only from after the last
     * layer's forward pass to before its backward pass (a head's intermediates, {@link #idle}).
     */
    public final class Scratch implements AutoCloseable {
        final int batch;
        final int t;
        /** The layer that made it: the widths it was made for are that layer's. */
        private final TransformerEncoderLayer layer = TransformerEncoderLayer.this;
        private final List<AutoCloseable> all = new ArrayList<>();
        final Attention attention;
        /** Forward intermediates (see the class comment for which share memory); merged, x1, h under autocast. */
        final Tensor qkv, merged, r1, x1, h, f;
        /**
         * Under autocast, qkv's memory read as the autocast dtype: the in-projection's output where attention takes
         * 16-bit q, k, v (rounded once in the GEMM's epilogue, as torch's addmm output); null without autocast.
         */
        final Tensor qkvLow;
        final Tensor ds2, df, dh, dx1, dr1, da, datt, delta, dqkvHeads, dq, dk, dv, dqkv;
        /**
         * Under autocast, the merged heads rounded for the out-projection: written from the kept attention output
         * in the forward pass and again, the same bits, before the out-projection's backward pass, so that one
         * copy serves all layers instead of one kept per layer.
         */
        final AutocastCopy mergedLow;

        /** The one block of fp32 memory that the forward and backward buffers (and {@link #idle}) lie in. */
        private final Tensor block;
        /** Elements of the block that {@link #idle} hands out. */
        private final long idleElements;

        Scratch(int batch, int t, long idleElements) {
            this.batch = batch;
            this.t = t;
            this.idleElements = idleElements;
            attention = new Attention(ctx);
            all.add(attention);
            mergedLow = new AutocastCopy(ctx, "merged heads", batch, t, dModel);
            all.add(mergedLow);
            long rows = (long) batch * t;
            long wide = rows * Math.max(3 * dModel, ff);
            long narrow = rows * dModel;
            long forward = wide + 2 * narrow;
            // the attention delta last: its length need not keep the others aligned
            long backward = 3 * narrow + wide + narrow + (long) batch * heads * t;
            block = keep(all, ctx.empty(OP, "forward or backward buffers", DType.FP32,
                    Math.toIntExact(Math.max(Math.max(forward, backward), idleElements))));
            Carver fwd = new Carver(block);
            Tensor qkvOrH = fwd.next(wide);
            qkv = qkvOrH.slice(0, 0, (int) rows * 3 * dModel).view(batch, t, 3 * dModel);
            qkvLow = ctx.autocast() == null ? null : qkvOrH.reinterpret(ctx.autocast(), batch, t, 3 * dModel);
            h = qkvOrH.slice(0, 0, (int) rows * ff).view(batch, t, ff);
            merged = fwd.next(narrow).view(batch, t, dModel);
            x1 = merged;
            r1 = fwd.next(narrow).view(batch, t, dModel);
            f = r1;
            Carver bwd = new Carver(block);
            ds2 = bwd.next(narrow).view(batch, t, dModel);
            df = bwd.next(narrow).view(batch, t, dModel);
            da = df;
            dr1 = bwd.next(narrow).view(batch, t, dModel);
            dqkvHeads = block.slice(0, 0, Math.toIntExact(3 * narrow)).view(3, batch, heads, t, headDim);
            Tensor dhOrQkv = bwd.next(wide);
            dh = dhOrQkv.slice(0, 0, (int) rows * ff).view(batch, t, ff);
            dqkv = dhOrQkv.slice(0, 0, (int) rows * 3 * dModel).view(batch, t, 3 * dModel);
            dx1 = bwd.next(narrow).view(batch, t, dModel);
            datt = dx1.view(batch, heads, t, headDim);
            dq = part(dqkvHeads, 0, batch, t);
            dk = part(dqkvHeads, 1, batch, t);
            dv = part(dqkvHeads, 2, batch, t);
            delta = bwd.next((long) batch * heads * t).view(batch, heads, t);
        }

        /**
         * The first {@link #scratch(int, int, long) idleElements} of the block, fp32, flat: free between layer
         * passes. What a model keeps there must be written after the last layer's forward pass and be dead before
         * the next layer pass (forward or backward) starts, which overwrites it.
         */
        public Tensor idle() {
            return block.slice(0, 0, Math.toIntExact(idleElements));
        }

        @Override
        public void close() {
            closeAll(all);
        }
    }

    /** Consecutive slices of a flat tensor, from its start. */
    private static final class Carver {
        private final Tensor block;
        private long next;

        Carver(Tensor block) {
            this.block = block;
        }

        Tensor next(long elements) {
            Tensor t = block.slice(0, Math.toIntExact(next), Math.toIntExact(elements));
            next += elements;
            return t;
        }
    }

    /** Scratch for [batch, T], to share between layers of these widths (see {@link Scratch}). */
    public Scratch scratch(int batch, int t) {
        return scratch(batch, t, 0);
    }

    /** As {@link #scratch(int, int)}, with at least {@code idleElements} fp32 elements free between layer passes. */
    public Scratch scratch(int batch, int t, long idleElements) {
        return new Scratch(batch, t, idleElements);
    }

    /**
     * What the forward pass keeps for the backward pass for one [batch, T], with a {@link Scratch} of its own or
     * one it shares with other layers. Under autocast (in force when these are made) the backward pass's GEMMs
     * read only the 16-bit copies of the merged heads, norm1's output and the GELU output, so the fp32 tensors
     * live in the scratch, as forward-only intermediates (the merged heads' copy too: the scratch's, written again
     * from the kept attention output before the out-projection's backward pass); without autocast they are kept
     * here. linear1's pre-activation, which GELU's backward pass reads, is kept in the autocast dtype (as torch
     * keeps addmm's output), else in fp32.
     */
    public final class Activations implements AutoCloseable {
        final int batch;
        final int t;
        /** Whether made under autocast: the 16-bit copies are what is kept. */
        final boolean lowKept;
        private final List<AutoCloseable> all = new ArrayList<>();
        final Scratch scratch;
        final Tensor qkvHeads, att, lse, s1, mean1, rstd1, pre, s2, mean2, rstd2;
        final Tensor merged, x1, h;
        /** norm1's output rounded for linear1 under autocast. */
        final AutocastCopy x1Low;
        /** The GELU output (after dropout) rounded for linear2 under autocast. */
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

        Activations(int batch, int t, Scratch shared) {
            this.batch = batch;
            this.t = t;
            this.lowKept = ctx.autocast() != null;
            int rows = batch * t;
            Scratch sc = shared;
            if (sc == null) {
                sc = new Scratch(batch, t, 0);
                all.add(sc);
            } else if (sc.batch != batch || sc.t != t || sc.layer.dModel != dModel || sc.layer.ff != ff
                    || sc.layer.heads != heads) {
                throw new IllegalArgumentException(OP + ": shared scratch is for [" + sc.batch + ", " + sc.t
                        + "] of width " + sc.layer.dModel + ", MLP " + sc.layer.ff + ", " + sc.layer.heads
                        + " heads; this layer needs [" + batch + ", " + t + "] of width " + dModel + ", MLP " + ff
                        + ", " + heads + " heads");
            }
            this.scratch = sc;
            // q, k and v (and their gradients) consecutive, so one layout launch moves all three
            qkvHeadsLow = copy("q, k, v by head", 3, batch, heads, t, headDim);
            // the tensor-core attention reads only the 16-bit q, k, v: no fp32 ones then
            boolean sixteenBitHeads = lowKept && headDim <= Attention.TENSOR_CORE_MAX_HEAD_DIM;
            qkvHeads = sixteenBitHeads ? null : make("q, k, v by head", 3, batch, heads, t, headDim);
            qkvFp32 = sixteenBitHeads ? null
                    : new Tensor[] {part(qkvHeads, 0, batch, t), part(qkvHeads, 1, batch, t), part(qkvHeads, 2, batch, t)};
            att = make("attention output", batch, heads, t, headDim);
            lse = make("attention logsumexp", batch, heads, t);
            s1 = make("first residual", batch, t, dModel);
            mean1 = make("norm1 mean", rows);
            rstd1 = make("norm1 rstd", rows);
            // in the autocast dtype, as torch keeps addmm's output (GELU's backward pass reads it)
            pre = keep(all, ctx.empty(OP, "linear1 pre-activation", lowKept ? ctx.autocast() : DType.FP32, batch, t,
                    ff));
            s2 = make("second residual", batch, t, dModel);
            mean2 = make("norm2 mean", rows);
            rstd2 = make("norm2 rstd", rows);
            merged = lowKept ? sc.merged : make("merged heads", batch, t, dModel);
            x1 = lowKept ? sc.x1 : make("norm1 output", batch, t, dModel);
            h = lowKept ? sc.h : make("feed-forward hidden", batch, t, ff);
            x1Low = copy("norm1 output", batch, t, dModel);
            hLow = copy("feed-forward hidden", batch, t, ff);
        }

        private Tensor make(String what, int... shape) {
            return keep(all, ctx.empty(OP, what, DType.FP32, shape));
        }

        private AutocastCopy copy(String what, int... shape) {
            AutocastCopy c = new AutocastCopy(ctx, what, shape);
            all.add(c);
            return c;
        }

        /**
         * The stacked q, k, v the forward pass writes by head, and remembers as attention's operands: the 16-bit
         * copy under autocast where the heads fit the tensor-core kernels, else the fp32 tensors.
         */
        private Tensor headsForAttention() {
            Tensor low = headDim <= Attention.TENSOR_CORE_MAX_HEAD_DIM ? qkvHeadsLow.get() : null;
            if (low == null) {
                if (qkvHeads == null) {
                    throw new IllegalStateException(OP + ": these activations were made under autocast (16-bit q, k, v"
                            + " only) and are used without it");
                }
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

    /** Activations with a scratch of their own. */
    public Activations activations(int batch, int t) {
        return new Activations(batch, t, null);
    }

    /** Activations whose scratch is {@code shared} (made by a layer of the same widths). */
    public Activations activations(int batch, int t, Scratch shared) {
        return new Activations(batch, t, shared);
    }

    public void forward(Tensor x, Tensor out, Activations a, long seed, long offset, Stream s) {
        forward(x, null, out, null, a, seed, offset, s);
    }

    /**
     * As {@link #forward(Tensor, Tensor, Activations, long, long, Stream)}; under autocast xLow (when not null)
     * is x already rounded to the autocast dtype (the previous layer's outLow: no cast before the
     * in-projection), and outLow (when not null) receives out rounded, for the next layer. Both must stay
     * unchanged until the backward pass. With xLow given, the backward pass does not read x.
     */
    public void forward(Tensor x, Tensor xLow, Tensor out, Tensor outLow, Activations a, long seed, long offset,
                        Stream s) {
        check(x, "out", out, a);
        Scratch sc = a.scratch;
        Tensor qkvHeads = a.headsForAttention();
        // 16-bit heads: the projection writes 16-bit rows, and the layout pass only moves them
        Tensor qkvRows = qkvHeads.dtype() == DType.FP32 ? sc.qkv : sc.qkvLow;
        inProj.forward(x, xLow, qkvRows, s);
        HeadLayout.toHeads(ctx, qkvRows, qkvHeads, a.batch, a.t, heads, headDim, 3 * dModel, 0, 3, s);
        Tensor[] qkv = a.attentionQkv;
        sc.attention.forward(qkv[0], qkv[1], qkv[2], a.att, a.lse, false, s);
        Tensor mergedLow = sc.mergedLow.get();
        // under autocast the out-projection reads only the 16-bit merged heads: no fp32 ones
        HeadLayout.toRows(ctx, a.att, mergedLow != null ? mergedLow : a.merged, a.batch, a.t, heads, headDim, dModel,
                0, 1, s);
        outProj.forward(a.merged, mergedLow, sc.r1, s);
        drop(sc.r1, sc.r1, seed, 4 * offset, s);
        Tensor x1Low = a.x1Low.get();
        norm1.forwardResidual(x, sc.r1, a.s1, a.x1, x1Low, a.mean1, a.rstd1, s);
        Tensor hLow = a.hLow.get();
        // with the 16-bit copy and no dropout, linear2 reads only the copy (forward and backward): h stays unwritten
        boolean hLowFromGelu = hLow != null && dropout == 0;
        linear1.forwardGelu(a.x1, x1Low, a.pre, hLowFromGelu ? null : a.h, hLowFromGelu ? hLow : null, s);
        drop(a.h, a.h, seed, 4 * offset + 1, s);
        linear2.forward(a.h, hLowFromGelu ? hLow : lowCopy(a.h, a.hLow, s), sc.f, s);
        drop(sc.f, sc.f, seed, 4 * offset + 2, s);
        norm2.forwardResidual(a.x1, sc.f, a.s2, out, outLow, a.mean2, a.rstd2, s);
    }

    /**
     * Under autocast, {@code x} rounded into its kept copy (the cast the linear layer would do itself, into memory
     * of this layer's activations rather than the linear layer's); null without autocast.
     */
    private Tensor lowCopy(Tensor x, AutocastCopy copy, Stream s) {
        Tensor low = copy.get();
        if (low != null) {
            ew.roundTo16(x, low, s);
        }
        return low;
    }

    /** dx is overwritten; parameter gradients accumulate. Same seed and offset as the forward pass. */
    public void backward(Tensor x, Tensor dout, Tensor dx, Activations a, long seed, long offset, Stream s) {
        check(x, "dout", dout, a);
        Shapes.requireSame(OP, "x", x, "dx", dx);
        Tensor[] qkv = a.attentionQkv;
        if (qkv == null) {
            // before any launch: a caller that catches this keeps its gradients as they were
            throw new IllegalStateException(OP + ": backward before any forward pass with these activations");
        }
        Scratch g = a.scratch;
        norm2.backward(a.s2, a.mean2, a.rstd2, dout, g.ds2, s);
        // s2 = x1 + f: ds2 reaches both
        Tensor df = drop(g.ds2, g.df, seed, 4 * offset + 2, s);
        linear2.backward(a.h, df, g.dh, s);
        drop(g.dh, g.dh, seed, 4 * offset + 1, s);
        linear1.backwardGelu(a.x1, a.pre, g.dh, g.dx1, s);
        // x1 feeds linear1 and the second residual: its gradient is dx1 + ds2, summed inside norm1's backward
        // s1 = x + r1: ds1 reaches both. It goes straight into dx (x's gradient by the residual path), and the
        // in-projection's backward adds the attention path's share to it
        norm1.backward(a.s1, a.mean1, a.rstd1, g.dx1, g.ds2, dx, s);
        Tensor dr1 = drop(dx, g.dr1, seed, 4 * offset, s);
        Tensor mergedLow = g.mergedLow.get();
        if (mergedLow != null) {
            // the shared copy holds another layer's merged heads: this layer's again, from its attention output
            HeadLayout.toRows(ctx, a.att, mergedLow, a.batch, a.t, heads, headDim, dModel, 0, 1, s);
        }
        outProj.backward(a.merged, dr1, g.da, s);
        HeadLayout.toHeads(ctx, g.da, g.datt, a.batch, a.t, heads, headDim, dModel, 0, 1, s);
        g.attention.backward(qkv[0], qkv[1], qkv[2], a.att, a.lse, g.datt, g.delta, g.dq, g.dk, g.dv, false, s);
        HeadLayout.toRows(ctx, g.dqkvHeads, g.dqkv, a.batch, a.t, heads, headDim, 3 * dModel, 0, 3, s);
        inProj.backward(x, g.dqkv, dx, true, s);
    }

    /** Parameters and the linear layers' own 16-bit scratch. */
    @Override
    public void close() {
        for (Layer l : new Layer[] {inProj, outProj, linear1, linear2, norm1, norm2}) {
            l.close();
        }
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
        if (a.lowKept != (ctx.autocast() != null)) {
            throw new IllegalStateException(OP + ": activations made " + (a.lowKept ? "under" : "without")
                    + " autocast, used " + (a.lowKept ? "without" : "under") + " it; make them in the mode they run in");
        }
        Shapes.require(OP, "x", x, a.batch, a.t, dModel);
        Shapes.requireDtype(OP, "x", x, DType.FP32);
        Shapes.requireContiguous(OP, "x", x);
        Shapes.requireSame(OP, "x", x, yName, y);
    }
}
