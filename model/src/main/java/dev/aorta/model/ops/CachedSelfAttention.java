package dev.aorta.model.ops;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The attention block for incremental decoding: causal multi-head self-attention (torch.nn.MultiheadAttention,
 * batch_first, state_dict names) whose keys and values are kept in a {@link KvCache}. Each
 * {@link #forward} takes the next t positions of x [batch, t, e] (a prefill of many, then one per step),
 * appends their keys and values to the cache and attends from the new queries over everything cached, so a
 * sequence fed in pieces gives what the whole sequence gives at once. Forward only (inference); fp32; the
 * scores of one call go through batched GEMMs ([batch·heads, t, cached] scratch in the cache).
 */
public final class CachedSelfAttention implements Layer {
    private static final String OP = "cached self-attention";

    private final OpContext ctx;
    private final int e;
    private final int heads;
    private final int d;
    private final Linear inProj;
    private final Linear outProj;

    public CachedSelfAttention(OpContext ctx, String prefix, int e, int heads, long seed) {
        if (heads <= 0 || e % heads != 0) {
            throw new IllegalArgumentException(OP + ": embedding " + e + " does not split into " + heads + " heads");
        }
        this.ctx = ctx;
        this.e = e;
        this.heads = heads;
        this.d = e / heads;
        this.inProj = new Linear(ctx, prefix + "in_proj_weight", prefix + "in_proj_bias", e, 3 * e, seed);
        this.outProj = new Linear(ctx, prefix + "out_proj", e, e, true, seed);
        // MultiheadAttention's own initialisation: xavier_uniform_ input projection, zero biases
        inProj.weight().load(Init.uniform(seed, inProj.weight().name(), Init.xavierBound(e, 3 * e), 3 * e, e));
        inProj.bias().load(Init.constant(0f, 3 * e));
        outProj.bias().load(Init.constant(0f, e));
    }

    /** In torch's state_dict order. */
    @Override
    public List<Parameter> parameters() {
        List<Parameter> p = new ArrayList<>(inProj.parameters());
        p.addAll(outProj.parameters());
        return p;
    }

    @Override
    public void close() {
        inProj.close();
        outProj.close();
    }

    /** Keys and values of up to maxT positions per sequence, and one call's scratch (sized for t = maxT). */
    public final class KvCache implements AutoCloseable {
        final int batch;
        final int maxT;
        final Tensor k;
        final Tensor v;
        private final Tensor qkv;
        private final Tensor q;
        private final Tensor att;
        private final Tensor merged;
        private final Tensor scores;
        private int length;

        KvCache(int batch, int maxT) {
            if (batch < 1 || maxT < 1 || (long) batch * heads * maxT * maxT > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(OP + ": a cache of batch " + batch + " and " + maxT
                        + " positions (its score scratch is batch·heads·maxT² elements, at most 2^31 - 1)");
            }
            this.batch = batch;
            this.maxT = maxT;
            k = ctx.empty(OP, "key cache", DType.FP32, batch, heads, maxT, d);
            v = ctx.empty(OP, "value cache", DType.FP32, batch, heads, maxT, d);
            qkv = ctx.empty(OP, "qkv", DType.FP32, batch * maxT * 3 * e);
            q = ctx.empty(OP, "queries", DType.FP32, batch * maxT * e);
            att = ctx.empty(OP, "attention output", DType.FP32, batch * maxT * e);
            merged = ctx.empty(OP, "merged heads", DType.FP32, batch * maxT * e);
            scores = ctx.empty(OP, "scores", DType.FP32, batch * heads * maxT * maxT);
        }

        /** Positions cached so far. */
        public int length() {
            return length;
        }

        /** Forgets every position (the next forward starts a new sequence). */
        public void reset() {
            length = 0;
        }

        /**
         * Keeps the first {@code positions} cached positions and forgets the rest (the next forward writes over
         * them): a sequence's later positions dropped, e.g. draft tokens a speculative round rejected.
         */
        public void truncate(int positions) {
            if (positions < 0 || positions > length) {
                throw new IllegalArgumentException(OP + ": cannot keep " + positions + " of the " + length
                        + " cached positions");
            }
            length = positions;
        }

        /** Zeros every slot's key and value on {@code s} (finite values for {@link #forwardAtDevicePosition}). */
        public void clear(Stream s) {
            k.zero(s);
            v.zero(s);
        }

        /** Counts t positions appended by a replayed {@link #forwardAtDevicePosition}, which the host did not run. */
        public void advanced(int t) {
            if (t < 0 || length + t > maxT) {
                throw new IllegalArgumentException(OP + ": " + t + " positions after " + length
                        + " cached do not fit the cache of " + maxT);
            }
            length += t;
        }

        @Override
        public void close() {
            for (Tensor t : new Tensor[] {k, v, qkv, q, att, merged, scores}) {
                t.close();
            }
        }
    }

    public KvCache cache(int batch, int maxT) {
        return new KvCache(batch, maxT);
    }

    /** y [batch, t, e] for the next t positions x [batch, t, e]; appends them to {@code cache}. */
    public void forward(Tensor x, Tensor y, KvCache cache, Stream s) {
        forward(x, null, y, cache, s);
    }

    /**
     * y = residual + attention(x) (residual null: attention(x) alone; it may be y itself), the residual added in the
     * out-projection's GEMM.
     */
    public void forward(Tensor x, Tensor residual, Tensor y, KvCache cache, Stream s) {
        int t = checkStep(x, y, cache);
        attend(x, residual, y, cache, null, cache.length, cache.length + t, s);
        cache.length += t;
    }

    /**
     * As {@link #forward(Tensor, Tensor, Tensor, KvCache, Stream)}, but the cache position is read by the kernels
     * from {@code position} (one int on the device, positions cached before this call; the caller advances it) and
     * the scores run over all maxT slots of the cache, those at or after the position masked to probability 0:
     * every launch and GEMM shape is the same at every position, so a decode step can be captured once as a CUDA
     * graph and replayed. The slots past the position must hold finite values (zeros from {@link
     * KvCache#clear}, or earlier sequences' keys and values): a masked slot's 0 probability multiplies its value.
     * The cache's host-side length is not advanced ({@link KvCache#advanced}: a replay does not run this method).
     */
    public void forwardAtDevicePosition(Tensor x, Tensor residual, Tensor y, KvCache cache, Tensor position,
                                        Stream s) {
        checkStep(x, y, cache);
        Shapes.require(OP, "position", position, 1);
        Shapes.requireDtype(OP, "position", position, DType.I32);
        attend(x, residual, y, cache, position, 0, cache.maxT, s);
    }

    private int checkStep(Tensor x, Tensor y, KvCache cache) {
        Shapes.requireRank(OP, "x", x, 3);
        int t = x.dim(1);
        Shapes.require(OP, "x", x, cache.batch, t, e);
        Shapes.requireSame(OP, "x", x, "y", y);
        if (t < 1 || cache.length + t > cache.maxT) {
            throw new IllegalArgumentException(OP + ": " + t + " new positions after " + cache.length
                    + " cached do not fit the cache of " + cache.maxT);
        }
        return t;
    }

    /**
     * The launches of one step: position null, the new positions start at {@code pos} and the scores span
     * {@code len} = pos + t; else the kernels read the start from {@code position} and {@code len} is maxT.
     */
    private void attend(Tensor x, Tensor residual, Tensor y, KvCache cache, Tensor position, int pos, int len,
                        Stream s) {
        int t = x.dim(1);
        int b = cache.batch;
        int bh = b * heads;
        Tensor qkv = first(cache.qkv, b, t, 3 * e);
        Tensor q = first(cache.q, b, heads, t, d);
        Tensor merged = first(cache.merged, b, t, e);
        inProj.forwardPlus(x, null, qkv, s);
        boolean vec = d % 4 == 0 && qkv.address() % 16 == 0 && q.address() % 16 == 0 && cache.k.address() % 16 == 0
                && cache.v.address() % 16 == 0; // 16-byte accesses: every row and head start on a 4-float boundary
        ctx.kernels().launch("layout.cu", "rows_to_heads_and_cache",
                ctx.kernels().gridFor(3 * q.numel() / (vec ? 4 : 1), 256), 256, s, qkv, q, cache.k, cache.v, position,
                b, t, heads, d, 3 * e, cache.maxT, pos, vec ? 1 : 0);
        long headStride = (long) cache.maxT * d;
        Cublas blas = ctx.blasOn(s);
        // S [bh, t, len] row-major = column-major len×t: K (d×len per head) transposed times Q (d×t)
        blas.gemmStridedBatched(GemmPrecision.FP32, true, false, len, t, d, 1f, cache.k.address(), d, headStride,
                q.address(), d, (long) t * d, 0f, cache.scores.address(), len, (long) t * len, bh);
        ctx.kernels().launch("attention.cu", "attention_cached_softmax", (bh * t + 3) / 4, 128, s, cache.scores,
                bh * t, t, len, (float) (1 / Math.sqrt(d)), position);
        // O (d×t per head) = V (d×len) · P (column-major len×t). With one sequence, or one position, head i's O
        // is at column offset i·d of the merged rows (leading dimension e): written there, no layout pass
        if (mergesInGemm(b, t)) {
            blas.gemmStridedBatched(GemmPrecision.FP32, false, false, d, t, len, 1f, cache.v.address(), d,
                    headStride, cache.scores.address(), len, (long) t * len, 0f, merged.address(), e, d, bh);
        } else {
            Tensor att = first(cache.att, b, heads, t, d);
            blas.gemmStridedBatched(GemmPrecision.FP32, false, false, d, t, len, 1f, cache.v.address(), d,
                    headStride, cache.scores.address(), len, (long) t * len, 0f, att.address(), d, (long) t * d, bh);
            HeadLayout.toRows(ctx, att, merged, b, t, heads, d, e, 0, 1, s);
        }
        outProj.forwardPlus(merged, residual, y, s);
    }

    /** Whether heads' outputs land at a fixed stride in the merged rows (one sequence, or one position each). */
    private static boolean mergesInGemm(int batch, int t) {
        return batch == 1 || t == 1;
    }

    /** The first elements of a flat scratch tensor under {@code shape}. */
    private static Tensor first(Tensor flat, int... shape) {
        return flat.slice(0, 0, (int) Shapes.numel(shape)).view(shape);
    }
}
