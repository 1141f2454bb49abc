package dev.aorta.trainer.metrics;

import dev.aorta.trainer.telemetry.TelemetrySummary;

/**
 * One line of {@code rank_<rr>_metrics.jsonl}: AORTA's fields ({@code rank, world_size, epoch, step, global_step,
 * loss, grad_norm, lr, profile}) and ours: {@code step_time_ms}, the host's time from the previous step's end (the
 * first step: from its first launch) to this step's end, so that the steps' times add up to the run's,
 * {@code device_time_source}, how the profile's times were measured, and with
 * {@code telemetry.nvml} the step's {@code telemetry} (null: not sampled).
 */
public record StepRecord(int rank, int worldSize, int epoch, int step, long globalStep, double loss, double gradNorm,
                         double lr, StepProfile profile, double stepTimeMs, DeviceTimeSource deviceTimeSource,
                         TelemetrySummary telemetry) {

    /** A line without telemetry. */
    public StepRecord(int rank, int worldSize, int epoch, int step, long globalStep, double loss, double gradNorm,
                      double lr, StepProfile profile, double stepTimeMs, DeviceTimeSource deviceTimeSource) {
        this(rank, worldSize, epoch, step, globalStep, loss, gradNorm, lr, profile, stepTimeMs, deviceTimeSource, null);
    }

    /** How device times were taken. */
    public enum DeviceTimeSource {
        /** CUDA events recorded on each stream around each operation. */
        CUDA_EVENTS("cuda_events"),
        /** CUPTI's activity records of the kernels and memory copies. */
        CUPTI("cupti");

        private final String label;

        DeviceTimeSource(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
