package dev.aorta.workloads;

import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessions;
import dev.aorta.workloads.session.GpuUnavailableException;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.SyncMode;
import dev.aorta.workloads.p0.TinyKernelStress;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs a small tiny_kernel_stress on the real GPU; skipped, with the reason, where there is none. */
class GpuSmokeTest {

    @Test
    void tinyKernelStressRunsOnTheRealDevice() {
        GpuSession gpu;
        try {
            gpu = GpuSessions.open(0);
        } catch (GpuUnavailableException e) {
            Assumptions.abort("no GPU here: " + e.getMessage());
            return;
        }
        try (gpu) {
            HarnessOptions o = HarnessOptions.defaults(4).withSyncMode(SyncMode.END_ONLY).withIterations(10, 2)
                    .withParams(Map.of("ops_per_stream", "10"));
            RunResult r = new Harness(Map.of(), false).run(new TinyKernelStress(), o, gpu);
            assertThat(r.throughput().value()).isPositive();
            assertThat(r.latencyMs().p50()).isPositive();
            assertThat(r.streams()).allSatisfy(s -> assertThat(s.busyMs()).isPositive());
            assertThat(r.correctness().problem()).isNull();
            assertThat(gpu.memoryStats().allocatedBytes()).isZero();
        }
    }
}
