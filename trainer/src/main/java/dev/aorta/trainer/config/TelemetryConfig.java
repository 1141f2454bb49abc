package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code telemetry} (ours): with {@code nvml}, each rank samples its GPU's clocks, power, temperature, utilisation and
 * PCIe throughput through NVML every {@code interval_ms} on a host thread and adds the step's samples to its
 * metrics line ({@link dev.aorta.trainer.telemetry.TelemetrySampler}). It replaces AORTA's {@code --enable-rocm-metrics}, which ran rocm-smi as a subprocess inside every step.
 */
public record TelemetryConfig(boolean nvml, int intervalMs) {
    public TelemetryConfig {
        require(intervalMs >= 1, "telemetry.interval_ms", "a whole number of milliseconds, at least 1");
    }

    static TelemetryConfig defaults() {
        return new TelemetryConfig(false, 100);
    }
}
