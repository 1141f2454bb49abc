package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.CachedSelfAttention;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.Layer;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.MlpBlock;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefLayerNorm;
import dev.aorta.model.reference.RefSelfAttention;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A stack of pre-norm decoder layers for incremental decoding, from the model module's ops: x + attention(LN(x))
 * with causal self-attention over a KV cache, then (when {@code mlp}) x + MLP(LN(x)) with GELU; forward only. The
 * layers of continuous_batch (attention only) and of speculative_decode's draft and main models. Its float64
 * reference runs a whole sequence at once, so a sequence fed in pieces through the cache is checked against it.
 */
final class CachedDecoder implements Layer {
    private static final float EPS = 1e-5f;

    private final int dim;
    private final int heads;
    private final boolean mlp;
    private final List<LayerNorm> norms1 = new ArrayList<>();
    private final List<CachedSelfAttention> attention = new ArrayList<>();
    private final List<LayerNorm> norms2 = new ArrayList<>();
    private final List<MlpBlock> mlps = new ArrayList<>();
    private final OpContext ops;
    private final Elementwise elementwise;

    CachedDecoder(OpContext ops, String prefix, int layers, int dim, int heads, boolean mlp, long seed) {
        this.ops = ops;
        this.dim = dim;
        this.heads = heads;
        this.mlp = mlp;
        elementwise = new Elementwise(ops);
        for (int l = 0; l < layers; l++) {
            norms1.add(new LayerNorm(ops, prefix + l + ".ln1", dim, EPS));
            attention.add(new CachedSelfAttention(ops, prefix + l + ".attn.", dim, heads, seed + l));
            if (mlp) {
                norms2.add(new LayerNorm(ops, prefix + l + ".ln2", dim, EPS));
                mlps.add(new MlpBlock(ops, prefix + l + ".mlp.", dim, 4 * dim, seed + l));
            }
        }
    }

    /** The KV caches of every layer for {@code batch} sequences of up to {@code maxT} positions, and the scratch. */
    final class Cache implements AutoCloseable {
        final List<CachedSelfAttention.KvCache> kv = new ArrayList<>();
        final int batch;
        final int maxT;
        private final Tensor normed;
        /** The MLP's output before its residual add (the attention adds its residual in its GEMM); null without. */
        private final Tensor branch;
        private final Tensor hidden;
        private final Tensor mean;
        private final Tensor rstd;
        /** Per layer and row count (MLP activations have exact shapes): made on first use of that count. */
        private final Map<Integer, List<MlpBlock.Activations>> mlpActs = new HashMap<>();
        /** Positions cached, on the device (one int), once {@link #keepPositionOnDevice} made replayable steps possible. */
        private Tensor position;

        Cache(int batch, int maxT, int maxStep) {
            this.batch = batch;
            this.maxT = maxT;
            for (CachedSelfAttention a : attention) {
                kv.add(a.cache(batch, maxT));
            }
            normed = ops.empty("cached decoder", "normed", DType.FP32, batch * maxStep, dim);
            branch = mlp ? ops.empty("cached decoder", "MLP output", DType.FP32, batch * maxStep, dim) : null;
            hidden = ops.empty("cached decoder", "layer output", DType.FP32, batch * maxStep, dim);
            mean = ops.empty("cached decoder", "mean", DType.FP32, batch * maxStep);
            rstd = ops.empty("cached decoder", "rstd", DType.FP32, batch * maxStep);
        }

        MlpBlock.Activations mlpActivations(int layer, int rows) {
            return mlpActs.computeIfAbsent(rows, r -> {
                List<MlpBlock.Activations> perLayer = new ArrayList<>();
                for (MlpBlock m : mlps) {
                    perLayer.add(m.activations(r));
                }
                return perLayer;
            }).get(layer);
        }

        int length() {
            return kv.getFirst().length();
        }

        /**
         * Makes decode steps through {@link #forwardAtDevicePosition} possible, on {@code s} (an empty cache): every
         * slot zeroed (a masked slot's value is multiplied by 0 and must be finite) and the position kept on the
         * device from now on (each {@link #forward} sets it: one launch more).
         */
        void keepPositionOnDevice(Stream s) {
            if (length() != 0) {
                throw new IllegalStateException("cached decoder: keepPositionOnDevice zeroes the cache, which holds "
                        + length() + " positions; call it on an empty cache");
            }
            if (position == null) {
                position = ops.empty("cached decoder", "position", DType.I32, 1);
                kv.forEach(k -> k.clear(s));
                setPosition(s);
            }
        }

        private void setPosition(Stream s) {
            ops.kernels().launch("layout.cu", "cache_position", 1, 32, s, position, length(), 0);
        }

        /** Counts t positions appended by a replay of a captured {@link #forwardAtDevicePosition} step. */
        void advanced(int t) {
            kv.forEach(k -> k.advanced(t));
        }

        /** Keeps every layer's first {@code positions} cached positions (see {@link CachedSelfAttention.KvCache#truncate}). */
        void keepFirst(int positions) {
            kv.forEach(k -> k.truncate(positions));
        }

        void reset() {
            kv.forEach(CachedSelfAttention.KvCache::reset);
        }

        @Override
        public void close() {
            kv.forEach(CachedSelfAttention.KvCache::close);
            normed.close();
            if (branch != null) {
                branch.close();
            }
            hidden.close();
            mean.close();
            rstd.close();
            if (position != null) {
                position.close();
            }
            mlpActs.values().forEach(list -> list.forEach(MlpBlock.Activations::close));
        }
    }

    /** Caches for {@code batch} sequences of up to {@code maxT} positions, fed at most {@code maxStep} at a time. */
    Cache cache(int batch, int maxT, int maxStep) {
        return new Cache(batch, maxT, maxStep);
    }

    /** y [batch, t, dim] for the next t positions x [batch, t, dim]; appends them to every layer's cache. */
    void forward(Tensor x, Tensor y, Cache c, Stream s) {
        layers(x, y, c, null, s);
        if (c.position != null) {
            c.setPosition(s);
        }
    }

    /**
     * As {@link #forward}, at the cache's device position (see {@link CachedSelfAttention#forwardAtDevicePosition}),
     * which the last launch advances by t: the same launches at every position, to be captured as a CUDA graph and
     * replayed (each replay told to the cache by {@link Cache#advanced}); one launch more than {@link #forward}.
     * Needs {@link Cache#keepPositionOnDevice}.
     */
    void forwardAtDevicePosition(Tensor x, Tensor y, Cache c, Stream s) {
        if (c.position == null) {
            throw new IllegalStateException("cached decoder: forwardAtDevicePosition needs a cache that keeps its "
                    + "position on the device (keepPositionOnDevice)");
        }
        layers(x, y, c, c.position, s);
        ops.kernels().launch("layout.cu", "cache_position", 1, 32, s, c.position, x.dim(1), 1);
    }

    /** The layers, the attention at the host's cache position (position null) or at the device's. */
    private void layers(Tensor x, Tensor y, Cache c, Tensor position, Stream s) {
        int t = x.dim(1);
        int rows = c.batch * t;
        Tensor normed = first(c.normed, rows, c.batch, t);
        Tensor h = first(c.hidden, rows, c.batch, t);
        Tensor mean = c.mean.slice(0, 0, rows);
        Tensor rstd = c.rstd.slice(0, 0, rows);
        Tensor in = x;
        for (int l = 0; l < attention.size(); l++) {
            Tensor out = l == attention.size() - 1 && !mlp ? y : h;
            norms1.get(l).forward(in, normed, mean, rstd, s);
            // out = in + attention: in place from layer 1
            if (position == null) {
                attention.get(l).forward(normed, in, out, c.kv.get(l), s);
            } else {
                attention.get(l).forwardAtDevicePosition(normed, in, out, c.kv.get(l), position, s);
            }
            if (mlp) {
                Tensor out2 = l == attention.size() - 1 ? y : h;
                norms2.get(l).forward(out, normed, mean, rstd, s);
                Tensor branch = first(c.branch, rows, c.batch, t);
                mlps.get(l).forward(normed.view(rows, dim), branch.view(rows, dim), c.mlpActivations(l, rows), s);
                elementwise.residualAdd(out, branch, out2, s);
            }
            in = l == attention.size() - 1 ? y : h;
        }
    }

    private Tensor first(Tensor flat, int rows, int batch, int t) {
        return flat.slice(0, 0, rows).view(batch, t, dim);
    }

    /** float64 forward of one whole sequence x [t, dim] (causal). */
    double[] reference(double[] x, int t) {
        double[] h = x;
        for (int l = 0; l < attention.size(); l++) {
            List<Parameter> n1 = norms1.get(l).parameters();
            double[] normed = RefLayerNorm.forward(h, host(n1.get(0)), host(n1.get(1)), t, dim, EPS);
            Map<String, double[]> p = new HashMap<>();
            List<Parameter> ap = attention.get(l).parameters();
            String[] names = {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"};
            for (int i = 0; i < names.length; i++) {
                p.put(names[i], host(ap.get(i)));
            }
            h = RefElementwise.add(h, RefSelfAttention.forward(p, normed, 1, t, dim, heads, true));
            if (mlp) {
                List<Parameter> n2 = norms2.get(l).parameters();
                double[] n = RefLayerNorm.forward(h, host(n2.get(0)), host(n2.get(1)), t, dim, EPS);
                List<Parameter> mp = mlps.get(l).parameters();
                double[] inner = Reference.linear(n, mp.get(0).value().toFloats(), mp.get(1).value().toFloats(), t,
                        dim, 4 * dim, true);
                h = RefElementwise.add(h, Reference.linear(inner, mp.get(2).value().toFloats(),
                        mp.get(3).value().toFloats(), t, 4 * dim, dim, false));
            }
        }
        return h;
    }

    private static double[] host(Parameter p) {
        return Reference.doubles(p.value().toFloats());
    }

    @Override
    public List<Parameter> parameters() {
        List<Parameter> all = new ArrayList<>();
        for (int l = 0; l < attention.size(); l++) {
            all.addAll(norms1.get(l).parameters());
            all.addAll(attention.get(l).parameters());
            if (mlp) {
                all.addAll(norms2.get(l).parameters());
                all.addAll(mlps.get(l).parameters());
            }
        }
        return all;
    }

    @Override
    public void close() {
        norms1.forEach(LayerNorm::close);
        attention.forEach(CachedSelfAttention::close);
        norms2.forEach(LayerNorm::close);
        mlps.forEach(MlpBlock::close);
    }
}
