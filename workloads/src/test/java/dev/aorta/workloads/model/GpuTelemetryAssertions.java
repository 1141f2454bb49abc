package dev.aorta.workloads.model;

import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.session.GpuTelemetry;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the GPU tests of the model workloads ask of a run's NVML readings (the simulated session has none). */
final class GpuTelemetryAssertions {
    private GpuTelemetryAssertions() {
    }

    /** Clocks, power and temperature read before setup and after the measured iterations, later than before. */
    static void assertRecordedBeforeAndAfter(RunResult r) {
        GpuTelemetry before = r.telemetry().before();
        GpuTelemetry after = r.telemetry().after();
        for (GpuTelemetry t : List.of(before, after)) {
            assertThat(t.available()).as(r.workloadName() + " telemetry: " + t.unavailable()).isTrue();
            for (String key : List.of("sm_clock_mhz", "power_w", "temperature_c")) {
                assertThat(t.value(key)).as(r.workloadName() + " " + key + " (" + t.missing().get(key) + ")").isNotNull();
            }
        }
        assertThat(after.at()).as(r.workloadName()).isAfter(before.at());
    }
}
