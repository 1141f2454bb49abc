package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code dataset}: AORTA's synthetic ranking data. Sample i is generated from {@code seed + i} alone, so every
 * rank and every run sees the same sample i: dense features [sequence_length, num_dense_features, dense_dim],
 * {@code sparse_features} categorical ids per position below {@code vocab_size}, a target and an importance weight
 * per position. Ours: {@code learnable: true} makes the target a fixed function of the inputs (AORTA's target is
 * independent noise, so its loss cannot fall), which lets a run show that training really trains.
 */
public record DatasetConfig(int numSamples, int sequenceLength, int denseDim, int sparseFeatures, int vocabSize,
                            int numDenseFeatures, long seed, boolean learnable) {
    public DatasetConfig {
        require(numSamples >= 1, "dataset.num_samples", "a whole number of at least 1");
        require(sequenceLength >= 1, "dataset.sequence_length", "a whole number of at least 1");
        require(denseDim >= 1, "dataset.dense_dim", "a whole number of at least 1");
        require(sparseFeatures >= 1, "dataset.sparse_features", "a whole number of at least 1");
        require(vocabSize >= 1, "dataset.vocab_size", "a whole number of at least 1");
        require(numDenseFeatures >= 1, "dataset.num_dense_features", "a whole number of at least 1");
    }

    static DatasetConfig defaults() {
        return new DatasetConfig(10_000, 64, 128, 32, 60_000, 16, 42, false);
    }
}
