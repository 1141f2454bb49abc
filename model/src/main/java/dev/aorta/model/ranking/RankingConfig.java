package dev.aorta.model.ranking;

/**
 * The sizes of {@link RankingModel} (the trainer's ranking transformer). {@link #DEFAULT} is the seed's
 * default configuration, the one the acceptance and the benchmark use.
 */
public record RankingConfig(int batch, int seq, int denseFeatures, int denseDim, int sparseFeatures, int vocab,
                            int embeddingDim, int modelDim, int heads, int layers, int mlpHidden, float dropout) {

    public static final RankingConfig DEFAULT = new RankingConfig(8, 64, 16, 128, 32, 60000, 192, 768, 12, 8, 2048,
            0.1f);

    public RankingConfig {
        int[] sizes = {batch, seq, denseFeatures, denseDim, sparseFeatures, vocab, embeddingDim, modelDim, heads,
                layers, mlpHidden};
        for (int s : sizes) {
            if (s <= 0) {
                throw new IllegalArgumentException("ranking model: every size must be positive, got " + this);
            }
        }
        if (modelDim % heads != 0) {
            throw new IllegalArgumentException("ranking model: model dim " + modelDim + " does not split into "
                    + heads + " heads");
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw new IllegalArgumentException("ranking model: dropout " + dropout + " outside [0, 1)");
        }
    }

    public RankingConfig withDropout(float p) {
        return new RankingConfig(batch, seq, denseFeatures, denseDim, sparseFeatures, vocab, embeddingDim, modelDim,
                heads, layers, mlpHidden, p);
    }

    /** Rows through the encoder: batch · seq. */
    public int rows() {
        return batch * seq;
    }
}
