package dev.aorta.trainer.data;

import dev.aorta.trainer.config.DatasetConfig;

/**
 * AORTA's synthetic ranking data, generated on the host. Sample i depends on {@code seed + i} alone (AORTA seeds
 * a torch generator with seed + index): dense features standard normal, categorical ids uniform below
 * {@code vocab_size}, target and importance uniform in [0, 1). PyTorch's generator cannot be reproduced bit for
 * bit in Java, so the values differ from AORTA's while their distributions are the same; a reference that needs
 * our exact batches reads the file {@code aorta train --dump-batches} writes.
 *
 * <p>With {@code dataset.learnable} the target is no longer noise but sigmoid(z), where z is a fixed random linear
 * function of the position's inputs, the same for every sample:
 * z = 4 · Σ_d w_d · mean_f dense[t, f, d] / √(Σ_d w_d² / F) + (2 · id₀ / (vocab − 1) − 1), with w_d standard
 * normal from the seed alone and id₀ the position's first categorical id. The dense term has standard deviation
 * 4 (so most targets are near 0 or 1 and the best loss is far under the untrained one) and is linear in the
 * model's flattened dense input, so the dense projection can represent it exactly; the id term is small and
 * only reachable through the embedding mean.
 */
public final class SyntheticRankingDataset {
    private static final long DENSE = 1;
    private static final long IDS = 2;
    private static final long TARGET = 3;
    private static final long IMPORTANCE = 4;
    private static final long LEARNABLE_WEIGHTS = 5;
    /** The dense term's standard deviation in the learnable target's logit. */
    static final double DENSE_LOGIT_SCALE = 4;

    private final DatasetConfig config;
    private final Shape shape;
    private final float[] learnableWeights;
    private final double learnableNorm;

    /** The per-sample sizes. */
    public record Shape(int sequenceLength, int denseFeatures, int denseDim, int sparseFeatures) {
        public int denseElements() {
            return sequenceLength * denseFeatures * denseDim;
        }

        public int categoricalElements() {
            return sequenceLength * sparseFeatures;
        }
    }

    public SyntheticRankingDataset(DatasetConfig config) {
        this.config = config;
        this.shape = new Shape(config.sequenceLength(), config.numDenseFeatures(), config.denseDim(),
                config.sparseFeatures());
        if (config.learnable()) {
            learnableWeights = new float[config.denseDim()];
            long key = CounterRandom.key(config.seed(), LEARNABLE_WEIGHTS);
            for (int d = 0; d < learnableWeights.length; d++) {
                learnableWeights[d] = CounterRandom.normal(key, d);
            }
            double sq = 0;
            for (float w : learnableWeights) {
                sq += (double) w * w;
            }
            learnableNorm = Math.sqrt(sq / config.numDenseFeatures());
        } else {
            learnableWeights = null;
            learnableNorm = 0;
        }
    }

    public Shape shape() {
        return shape;
    }

    /** Samples in one epoch. */
    public int size() {
        return config.numSamples();
    }

    /** Writes sample {@code index} (0 ≤ index &lt; {@link #size()}) into {@code out}. */
    public void fill(long index, Sample out) {
        if (index < 0 || index >= config.numSamples()) {
            throw new IndexOutOfBoundsException("sample " + index + " of a dataset of " + config.numSamples());
        }
        long seed = config.seed() + index;
        long denseKey = CounterRandom.key(seed, DENSE);
        float[] dense = out.dense;
        for (int j = 0; j < dense.length; j++) {
            dense[j] = CounterRandom.normal(denseKey, j);
        }
        long idKey = CounterRandom.key(seed, IDS);
        for (int j = 0; j < out.categorical.length; j++) {
            out.categorical[j] = CounterRandom.below(idKey, j, config.vocabSize());
        }
        long targetKey = CounterRandom.key(seed, TARGET);
        long importanceKey = CounterRandom.key(seed, IMPORTANCE);
        for (int t = 0; t < shape.sequenceLength(); t++) {
            out.target[t] = config.learnable() ? learnableTarget(out, t) : CounterRandom.uniform(targetKey, t);
            out.importance[t] = CounterRandom.uniform(importanceKey, t);
        }
    }

    /** sigmoid(z) for position t, z as in the class comment. */
    private float learnableTarget(Sample s, int t) {
        int f = shape.denseFeatures();
        int d = shape.denseDim();
        double dot = 0;
        for (int k = 0; k < d; k++) {
            double mean = 0;
            for (int i = 0; i < f; i++) {
                mean += s.dense[(t * f + i) * d + k];
            }
            dot += learnableWeights[k] * (mean / f);
        }
        int firstId = s.categorical[t * shape.sparseFeatures()];
        double idTerm = config.vocabSize() == 1 ? 0 : 2.0 * firstId / (config.vocabSize() - 1) - 1;
        double z = DENSE_LOGIT_SCALE * dot / learnableNorm + idTerm;
        return (float) (1 / (1 + Math.exp(-z)));
    }
}
