package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code model}: AORTA's ranking transformer. Dense features (num_dense_features·dense_dim per position) and the
 * mean of the categorical embeddings (embedding_dim) are each projected to model_dim and summed; num_layers
 * post-norm GELU encoder layers (num_heads heads, mlp_hidden_dim feed-forward) follow; a LayerNorm and a scorer
 * (model_dim → mlp_hidden_dim → GELU → dropout → 1) give one score per position.
 */
public record ModelConfig(int vocabSize, int embeddingDim, int numDenseFeatures, int denseDim, int modelDim,
                          int numHeads, int numLayers, double dropout, int mlpHiddenDim) {
    /** The widest attention head the model module's flash-style attention kernel takes. */
    public static final int MAX_HEAD_DIM = 128;

    public ModelConfig {
        require(vocabSize >= 1, "model.vocab_size", "a whole number of at least 1");
        require(embeddingDim >= 1, "model.embedding_dim", "a whole number of at least 1");
        require(numDenseFeatures >= 1, "model.num_dense_features", "a whole number of at least 1");
        require(denseDim >= 1, "model.dense_dim", "a whole number of at least 1");
        require(numHeads >= 1, "model.num_heads", "a whole number of at least 1");
        require(modelDim >= 1 && modelDim % numHeads == 0, "model.model_dim",
                "a positive multiple of model.num_heads (" + numHeads + ")");
        require(modelDim / numHeads <= MAX_HEAD_DIM, "model.num_heads",
                "large enough that model_dim / num_heads is at most " + MAX_HEAD_DIM
                        + " (the attention kernel's widest head), here " + modelDim + " / " + numHeads);
        require(numLayers >= 1, "model.num_layers", "a whole number of at least 1");
        require(dropout >= 0 && dropout < 1, "model.dropout", "a number in [0, 1)");
        require(mlpHiddenDim >= 1, "model.mlp_hidden_dim", "a whole number of at least 1");
    }

    static ModelConfig defaults() {
        return new ModelConfig(60_000, 192, 16, 128, 768, 12, 8, 0.1, 2048);
    }
}
