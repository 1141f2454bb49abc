package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code training}: the loop. {@code batch_size} is per rank and per optimizer step; it is split into
 * {@code gradient_accumulation} micro-batches whose gradients are summed before one reduction and one optimizer
 * step (AORTA parses the key but never uses it). {@code grad_clip_norm} 0 turns clipping off. {@code max_steps} 0
 * means {@code epochs} passes over the dataset.
 */
public record TrainingConfig(int epochs, int batchSize, int gradientAccumulation, MixedPrecision mixedPrecision,
                             double gradClipNorm, int logInterval, int maxSteps, String outputDir,
                             boolean injectAllreduceCopies, int allreduceStressLevel) {

    /** The compute precision; master weights, gradients and optimizer state stay fp32. fp16 adds loss scaling. */
    public enum MixedPrecision {
        @JsonProperty("bf16") BF16,
        @JsonProperty("fp16") FP16,
        @JsonProperty("none") NONE
    }

    public TrainingConfig {
        require(epochs >= 1, "training.epochs", "a whole number of at least 1");
        require(batchSize >= 1, "training.batch_size", "a whole number of at least 1");
        require(gradientAccumulation >= 1, "training.gradient_accumulation", "a whole number of at least 1");
        require(batchSize % gradientAccumulation == 0, "training.batch_size",
                "a multiple of training.gradient_accumulation (" + gradientAccumulation + "), since each optimizer"
                        + " step splits batch_size " + batchSize + " into that many equal micro-batches");
        require(gradClipNorm >= 0, "training.grad_clip_norm", "a number of at least 0 (0 turns clipping off)");
        require(logInterval >= 1, "training.log_interval", "a whole number of at least 1");
        require(maxSteps >= 0, "training.max_steps", "a whole number of at least 0 (0: run training.epochs)");
        require(outputDir != null && !outputDir.isBlank(), "training.output_dir", "a directory name");
        require(allreduceStressLevel >= 1 && allreduceStressLevel <= 10, "training.allreduce_stress_level",
                "a whole number from 1 to 10 (the all-reduce + copy cycles injected into each step)");
    }

    /** Samples in each micro-batch. */
    public int microBatchSize() {
        return batchSize / gradientAccumulation;
    }

    static TrainingConfig defaults() {
        return new TrainingConfig(1, 8, 1, MixedPrecision.BF16, 1.0, 5, 200, "artifacts", false, 1);
    }
}
