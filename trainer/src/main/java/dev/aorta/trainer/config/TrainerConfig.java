package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * The whole configuration of {@code aorta train}: AORTA's sections and keys with AORTA's defaults
 * ({@code config/default.yaml} holds the same values), plus our additions, each documented on its section and in
 * docs/trainer.md. Built by {@link ConfigLoader}, which refuses unknown keys and values of the wrong type.
 */
public record TrainerConfig(LoggingConfig logging, TrainingConfig training, OptimizerConfig optimizer,
                            SchedulerConfig scheduler, DatasetConfig dataset, ModelConfig model, FsdpConfig fsdp,
                            DistributedConfig distributed, CompileConfig compile, DataloaderConfig dataloader,
                            ProfilingConfig profiling, TelemetryConfig telemetry) {

    public TrainerConfig {
        // The dataset feeds the model: a mismatch would index past the embedding table or misshape the projection.
        require(dataset.vocabSize() <= model.vocabSize(), "dataset.vocab_size",
                "at most model.vocab_size (" + model.vocabSize() + "), since every id indexes the embedding table");
        require(dataset.numDenseFeatures() == model.numDenseFeatures(), "dataset.num_dense_features",
                "equal to model.num_dense_features (" + model.numDenseFeatures() + ")");
        require(dataset.denseDim() == model.denseDim(), "dataset.dense_dim",
                "equal to model.dense_dim (" + model.denseDim() + ")");
    }

    public static TrainerConfig defaults() {
        return new TrainerConfig(LoggingConfig.defaults(), TrainingConfig.defaults(), OptimizerConfig.defaults(),
                SchedulerConfig.defaults(), DatasetConfig.defaults(), ModelConfig.defaults(), FsdpConfig.defaults(),
                DistributedConfig.defaults(), CompileConfig.defaults(), DataloaderConfig.defaults(),
                ProfilingConfig.defaults(), TelemetryConfig.defaults());
    }
}
