package dev.aorta.model.ranking;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.AutocastCopy;
import dev.aorta.model.ops.BceWithLogits;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.EmbeddingMeanPool;
import dev.aorta.model.ops.Layer;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.LowDyScratch;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.ops.TransformerEncoderLayer;

import java.util.ArrayList;
import java.util.List;

/**
 * The trainer's ranking transformer (AMD AORTA's RankingTransformerModel), fp32, on dense [B, T, F, D] and
 * categorical [B, T, S] inputs:
 *
 * <pre>
 *   x      = dense_projection(flatten(dense)) + embedding_projection(mean_S(embedding(categorical)))
 *   x      = encoder.layers[N-1](... encoder.layers[0](x))      (torch TransformerEncoderLayer, post-norm, GELU)
 *   scores = scorer.3(dropout(gelu(scorer.0(norm(x)))))         [B, T]
 *   loss   = mean(importance · BCEWithLogits(scores, target))
 * </pre>
 *
 * Parameter names and order are the torch module's state_dict, so a parameter file written from
 * {@link #parameters()} loads into it with {@code load_state_dict(strict=True)}.
 */
public final class RankingModel implements Layer {
    private static final String OP = "ranking model";

    private final OpContext ctx;
    private final RankingConfig cfg;
    private final EmbeddingMeanPool embedding;
    private final Linear denseProjection;
    private final Linear embeddingProjection;
    private final List<TransformerEncoderLayer> layers = new ArrayList<>();
    private final LayerNorm norm;
    private final Linear scorerIn;
    private final Linear scorerOut;
    private final Elementwise ew;
    private final BceWithLogits bce;
    /** The 16-bit dy copy of every linear layer's autocast backward pass: they run one after another. */
    private final LowDyScratch lowDy;

    public RankingModel(OpContext ctx, RankingConfig cfg, long seed) {
        this.ctx = ctx;
        this.cfg = cfg;
        // the widest linear output: the encoder's in-projection (3·D) or feed-forward (H), the scorer's (H)
        this.lowDy = new LowDyScratch(ctx, (long) cfg.rows() * Math.max(3 * cfg.modelDim(), cfg.mlpHidden()));
        this.embedding = new EmbeddingMeanPool(ctx, "embedding", cfg.vocab(), cfg.embeddingDim(), seed);
        this.denseProjection = new Linear(ctx, "dense_projection", cfg.denseFeatures() * cfg.denseDim(),
                cfg.modelDim(), true, seed, lowDy);
        this.embeddingProjection = new Linear(ctx, "embedding_projection", cfg.embeddingDim(), cfg.modelDim(), true,
                seed, lowDy);
        for (int i = 0; i < cfg.layers(); i++) {
            layers.add(new TransformerEncoderLayer(ctx, "encoder.layers." + i + ".", cfg.modelDim(), cfg.heads(),
                    cfg.mlpHidden(), cfg.dropout(), seed, lowDy));
        }
        this.norm = new LayerNorm(ctx, "norm", cfg.modelDim(), 1e-5f);
        this.scorerIn = new Linear(ctx, "scorer.0", cfg.modelDim(), cfg.mlpHidden(), true, seed, lowDy);
        this.scorerOut = new Linear(ctx, "scorer.3", cfg.mlpHidden(), 1, true, seed, lowDy);
        this.ew = new Elementwise(ctx);
        this.bce = new BceWithLogits(ctx);
    }

    public RankingConfig config() {
        return cfg;
    }

    /** In the torch module's state_dict order. */
    @Override
    public List<Parameter> parameters() {
        List<Parameter> p = new ArrayList<>();
        p.addAll(embedding.parameters());
        p.addAll(denseProjection.parameters());
        p.addAll(embeddingProjection.parameters());
        for (TransformerEncoderLayer l : layers) {
            p.addAll(l.parameters());
        }
        p.addAll(norm.parameters());
        p.addAll(scorerIn.parameters());
        p.addAll(scorerOut.parameters());
        return p;
    }

    /** Every sublayer: parameters and their scratch. */
    @Override
    public void close() {
        embedding.close();
        denseProjection.close();
        embeddingProjection.close();
        layers.forEach(TransformerEncoderLayer::close);
        norm.close();
        scorerIn.close();
        scorerOut.close();
        lowDy.close();
    }

    /** What one step keeps between forward and backward, and the backward pass's scratch. */
    public final class Activations implements AutoCloseable {
        private final List<AutoCloseable> all = new ArrayList<>();
        final Tensor pooled, denseRepr, embedRepr, normOut, mean, rstd, pre, hidden, scores, loss;
        /**
         * The encoder's inputs (xs[0], the stem's sum) and the layers' outputs. Under autocast (in force when these
         * are made) only the last is read by a backward pass (the final norm's): the layers' in-projections read
         * the 16-bit copies, so two fp32 buffers serve all, alternating; without autocast each is kept.
         */
        final Tensor[] xs;
        /**
         * Under autocast, xs[i] (i < layers), normOut and the scorer's hidden layer rounded for the GEMM that reads
         * them.
         */
        final AutocastCopy[] xsLow;
        final AutocastCopy normOutLow;
        final AutocastCopy hiddenLow;
        final List<TransformerEncoderLayer.Activations> layerActs = new ArrayList<>();
        final Tensor dscores, dhidden, dnorm, dpooled, dx0, dx1;

        Activations() {
            int b = cfg.batch();
            int t = cfg.seq();
            int m = cfg.modelDim();
            pooled = make("pooled embedding", b * t, cfg.embeddingDim());
            boolean lowKept = ctx.autocast() != null;
            xs = new Tensor[cfg.layers() + 1];
            xsLow = new AutocastCopy[cfg.layers()];
            for (int i = 0; i <= cfg.layers(); i++) {
                xs[i] = lowKept && i >= 2 ? xs[i - 2] : make(lowKept ? "encoder activations (" + (i == 0 ? "even"
                        : "odd") + ")" : "encoder input " + i, b, t, m);
                if (i < cfg.layers()) {
                    xsLow[i] = new AutocastCopy(ctx, "encoder input " + i, b, t, m);
                    all.add(xsLow[i]);
                }
            }
            normOutLow = new AutocastCopy(ctx, "final norm output", b, t, m);
            all.add(normOutLow);
            hiddenLow = new AutocastCopy(ctx, "scorer hidden", b, t, cfg.mlpHidden());
            all.add(hiddenLow);
            // the layers' passes run one after the other on one stream: one scratch serves all. The head's
            // intermediates live between the last layer's forward pass and its backward pass, in the scratch's idle
            // memory: the final norm's output and its gradient, the scorer's hidden layer and its gradient. Under
            // autocast each shares memory with its gradient: the scorer's GEMMs read the 16-bit copies of the
            // final norm's output and the hidden layer, so the fp32 ones are forward-only
            int narrow = cfg.rows() * m;
            int wide = cfg.rows() * cfg.mlpHidden();
            // offsets in the idle memory of normOut, dnorm, hidden, dhidden
            int[] at = lowKept ? new int[] {0, 0, narrow, narrow}
                    : new int[] {0, narrow, 2 * narrow, 2 * narrow + wide};
            TransformerEncoderLayer.Scratch layerScratch = layers.getFirst().scratch(b, t, at[3] + (long) wide);
            all.add(layerScratch);
            Tensor idle = layerScratch.idle();
            normOut = idle.slice(0, at[0], narrow).view(b, t, m);
            dnorm = idle.slice(0, at[1], narrow).view(b, t, m);
            hidden = idle.slice(0, at[2], wide).view(b, t, cfg.mlpHidden());
            dhidden = idle.slice(0, at[3], wide).view(b, t, cfg.mlpHidden());
            for (TransformerEncoderLayer l : layers) {
                TransformerEncoderLayer.Activations a = l.activations(b, t, layerScratch);
                layerActs.add(a);
                all.add(a);
            }
            mean = make("final norm mean", b * t);
            rstd = make("final norm rstd", b * t);
            // in the autocast dtype, as torch keeps addmm's output (GELU's backward pass reads it)
            pre = make("scorer pre-activation", lowKept ? ctx.autocast() : DType.FP32, b, t, cfg.mlpHidden());
            scores = make("scores", b, t, 1);
            loss = make("loss", 1);
            dscores = make("d scores", b, t, 1);
            dpooled = make("d pooled embedding", b * t, cfg.embeddingDim());
            dx0 = make("d encoder activations (even)", b, t, m);
            dx1 = make("d encoder activations (odd)", b, t, m);
            // the stem's projections are dead once summed into the first layer's input, before any gradient of
            // an encoder activation is written (the stem's backward pass does not read them)
            denseRepr = dx0;
            embedRepr = dx1;
        }

        private Tensor make(String what, int... shape) {
            return make(what, DType.FP32, shape);
        }

        private Tensor make(String what, DType dtype, int... shape) {
            Tensor x = ctx.empty(OP, what, dtype, shape);
            all.add(x);
            return x;
        }

        /** Scores [B, T] of the last forward pass. */
        public Tensor scores() {
            return scores.view(cfg.batch(), cfg.seq());
        }

        /** The mean weighted loss [1] of the last {@link #forward}. */
        public Tensor loss() {
            return loss;
        }

        @Override
        public void close() {
            for (AutoCloseable c : all) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    public Activations activations() {
        return new Activations();
    }

    /**
     * Scores and loss for one batch. {@code step} picks the dropout masks (Philox offsets): backward must get
     * the same seed and step. The same as {@link #forwardStem}, {@link #forwardLayer} for every layer in order,
     * then {@link #forwardHead}.
     */
    public void forward(Tensor dense, Tensor categorical, Tensor target, Tensor importance, Activations a, long seed,
                        long step, Stream s) {
        forwardStem(dense, categorical, target, importance, a, s);
        for (int i = 0; i < layers.size(); i++) {
            forwardLayer(i, a, seed, step, s);
        }
        forwardHead(target, importance, a, seed, step, s);
    }

    /** The forward pass's first block (embedding and both input projections), into the first layer's input. */
    public void forwardStem(Tensor dense, Tensor categorical, Tensor target, Tensor importance, Activations a,
                            Stream s) {
        checkInputs(dense, categorical, target, importance);
        embedding.forward(categorical.view(cfg.rows(), cfg.sparseFeatures()), a.pooled, s);
        denseProjection.forward(denseFlat(dense), a.denseRepr, s);
        embeddingProjection.forward(a.pooled.view(cfg.batch(), cfg.seq(), cfg.embeddingDim()), a.embedRepr, s);
        ew.residualAdd(a.denseRepr, a.embedRepr, a.xs[0], s);
        Tensor x0Low = a.xsLow[0].get();
        if (x0Low != null) {
            // the first layer's in-projection reads this copy, forward and backward, as the others read their
            // predecessor's (the cast it would make itself otherwise)
            ew.roundTo16(a.xs[0], x0Low, s);
        }
    }

    /** Encoder layer {@code i}'s forward pass, after layer i − 1's (or the stem's). */
    public void forwardLayer(int i, Activations a, long seed, long step, Stream s) {
        // each layer's output (a layer norm's) but the last is also written rounded for the next layer's
        // in-projection; the first layer's input is rounded by the stem (copies are allocated on first get)
        int n = layers.size();
        layers.get(i).forward(a.xs[i], a.xsLow[i].get(), a.xs[i + 1],
                i + 1 < n ? a.xsLow[i + 1].get() : null, a.layerActs.get(i), seed, dropoutOffset(step, i), s);
    }

    /** The final norm, the scorer and the loss, after the last layer's forward pass. */
    public void forwardHead(Tensor target, Tensor importance, Activations a, long seed, long step, Stream s) {
        int rows = cfg.rows();
        Tensor normOutLow = a.normOutLow.get();
        norm.forward(a.xs[layers.size()], a.normOut, normOutLow, a.mean, a.rstd, s);
        Tensor hiddenLow = cfg.dropout() > 0 ? null : a.hiddenLow.get(); // dropout would change hidden after
        scorerIn.forwardGelu(a.normOut, normOutLow, a.pre, a.hidden, hiddenLow, s);
        if (cfg.dropout() > 0) {
            ew.dropout(a.hidden, a.hidden, cfg.dropout(), seed, scorerDropoutOffset(step), s);
        }
        scorerOut.forward(a.hidden, hiddenLow, a.scores, s);
        bce.forward(flat(a.scores), flat(target), flat(importance).view(rows), null, a.loss, s);
    }

    /**
     * Parameter gradients accumulate (as in PyTorch; see {@link #zeroGrad}); d loss = {@code dloss}. The same as
     * {@link #backwardHead}, {@link #backwardLayer} for every layer from the last, then {@link #backwardStem}.
     */
    public void backward(Tensor dense, Tensor categorical, Tensor target, Tensor importance, float dloss,
                         Activations a, long seed, long step, Stream s) {
        checkInputs(dense, categorical, target, importance);
        backwardHead(target, importance, dloss, a, seed, step, s);
        for (int i = layers.size() - 1; i >= 0; i--) {
            backwardLayer(i, a, seed, step, s);
        }
        backwardStem(dense, categorical, a, s);
    }

    /** The head's backward pass (loss, scorer, final norm), into the gradient of the last layer's output. */
    public void backwardHead(Tensor target, Tensor importance, float dloss, Activations a, long seed, long step,
                             Stream s) {
        int rows = cfg.rows();
        bce.backward(flat(a.scores), flat(target), flat(importance).view(rows), null, dloss, flat(a.dscores), s);
        scorerOut.backward(a.hidden, a.dscores, a.dhidden, s);
        if (cfg.dropout() > 0) {
            ew.dropout(a.dhidden, a.dhidden, cfg.dropout(), seed, scorerDropoutOffset(step), s);
        }
        scorerIn.backwardGelu(a.normOut, a.pre, a.dhidden, a.dnorm, s);
        norm.backward(a.xs[layers.size()], a.mean, a.rstd, a.dnorm, dActivation(a, layers.size()), s);
    }

    /** Encoder layer {@code i}'s backward pass, after layer i + 1's (or the head's). */
    public void backwardLayer(int i, Activations a, long seed, long step, Stream s) {
        layers.get(i).backward(a.xs[i], dActivation(a, i + 1), dActivation(a, i), a.layerActs.get(i), seed,
                dropoutOffset(step, i), s);
    }

    /** The stem's backward pass, after the first layer's. */
    public void backwardStem(Tensor dense, Tensor categorical, Activations a, Stream s) {
        Tensor dout = dActivation(a, 0);
        // x0 = dense_repr + embed_repr: dout reaches both projections; the dense input needs no gradient
        denseProjection.backward(denseFlat(dense), dout, null, s);
        embeddingProjection.backward(a.pooled.view(cfg.batch(), cfg.seq(), cfg.embeddingDim()), dout,
                a.dpooled.view(cfg.batch(), cfg.seq(), cfg.embeddingDim()), s);
        embedding.backward(categorical.view(cfg.rows(), cfg.sparseFeatures()), a.dpooled, s);
    }

    /** The gradient of encoder input j (j = layers: the last layer's output): two buffers, alternating. */
    private Tensor dActivation(Activations a, int j) {
        return (layers.size() - j) % 2 == 0 ? a.dx0 : a.dx1;
    }

    /**
     * How far every dropout's Philox offset moves per unit of {@code step}: a CUDA graph captured with step m
     * replays step n·s + m's masks when the device-held base ({@link dev.aorta.model.OpContext#philoxBaseFrom}) is
     * n·s times this.
     */
    public long philoxOffsetsPerStep() {
        return 4L * (layers.size() + 1);
    }

    /** Encoder layer i's dropout offset at {@code step} (each layer draws 4 Philox offsets per offset unit). */
    private long dropoutOffset(long step, int layer) {
        return step * (layers.size() + 1) + layer;
    }

    /** The scorer's dropout takes the unit after the last layer's, in the encoder's 4-per-unit numbering. */
    private long scorerDropoutOffset(long step) {
        return 4 * (step * (layers.size() + 1) + layers.size());
    }

    private Tensor denseFlat(Tensor dense) {
        return dense.view(cfg.batch(), cfg.seq(), cfg.denseFeatures() * cfg.denseDim());
    }

    /** [B, T] or [B, T, 1] as one row of B·T, so that a per-element weight is BceWithLogits' per-column weight. */
    private Tensor flat(Tensor t) {
        return t.view(1, cfg.rows());
    }

    private void checkInputs(Tensor dense, Tensor categorical, Tensor target, Tensor importance) {
        Shapes.require(OP, "dense", dense, cfg.batch(), cfg.seq(), cfg.denseFeatures(), cfg.denseDim());
        Shapes.requireDtype(OP, "dense", dense, DType.FP32);
        Shapes.requireContiguous(OP, "dense", dense);
        Shapes.require(OP, "categorical", categorical, cfg.batch(), cfg.seq(), cfg.sparseFeatures());
        Shapes.requireDtype(OP, "categorical", categorical, DType.I32);
        Shapes.requireContiguous(OP, "categorical", categorical);
        for (Tensor t : new Tensor[] {target, importance}) {
            String name = t == target ? "target" : "importance";
            Shapes.require(OP, name, t, cfg.batch(), cfg.seq());
            Shapes.requireDtype(OP, name, t, DType.FP32);
            Shapes.requireContiguous(OP, name, t);
        }
    }
}
