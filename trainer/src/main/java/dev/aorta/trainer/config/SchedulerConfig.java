package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code scheduler}: linear warmup over {@code warmup_steps}, then linear decay to 0 at {@code total_steps}; a
 * {@code total_steps} of 0 keeps {@code optimizer.lr} constant (as AORTA, which builds no scheduler then).
 */
public record SchedulerConfig(int warmupSteps, int totalSteps) {
    public SchedulerConfig {
        require(warmupSteps >= 0, "scheduler.warmup_steps", "a whole number of at least 0");
        require(totalSteps >= 0, "scheduler.total_steps", "a whole number of at least 0 (0: constant lr)");
        require(totalSteps == 0 || warmupSteps <= totalSteps, "scheduler.warmup_steps",
                "at most scheduler.total_steps (" + totalSteps + ")");
    }

    static SchedulerConfig defaults() {
        return new SchedulerConfig(100, 2000);
    }
}
