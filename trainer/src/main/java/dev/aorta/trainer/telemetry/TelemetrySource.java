package dev.aorta.trainer.telemetry;

/** Where {@link TelemetrySampler} reads the GPU's state: NVML on a GPU host, a fake in the tests. */
public interface TelemetrySource {
    /** The GPU's state now; fields the source cannot read are NaN. */
    TelemetrySample read();
}
