package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

import static dev.aorta.trainer.config.ConfigValueException.require;

/** {@code optimizer}: AdamW on each rank's shard of the parameters (AORTA's optional Shampoo is not offered). */
public record OptimizerConfig(Name name, double lr, double weightDecay, List<Double> betas, double eps) {
    public enum Name {
        @JsonProperty("adamw") ADAMW
    }

    public OptimizerConfig {
        require(lr > 0, "optimizer.lr", "a number above 0");
        require(weightDecay >= 0, "optimizer.weight_decay", "a number of at least 0");
        require(betas != null && betas.size() == 2 && betas.stream().allMatch(b -> b >= 0 && b < 1),
                "optimizer.betas", "a list of two numbers in [0, 1), like [0.9, 0.98]");
        require(eps > 0, "optimizer.eps", "a number above 0");
        betas = List.copyOf(betas);
    }

    static OptimizerConfig defaults() {
        return new OptimizerConfig(Name.ADAMW, 3e-4, 0.01, List.of(0.9, 0.98), 1e-8);
    }
}
