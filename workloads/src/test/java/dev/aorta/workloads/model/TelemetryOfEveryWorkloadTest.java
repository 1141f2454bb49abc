package dev.aorta.workloads.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every bundled workload's result records the GPU's clocks, power and temperature read before setup and after the
 * measured iterations: a fake NVML that reads cool before and hot after must show up as such in each result file.
 * The model workloads need a CUDA device, which the simulated session lacks; their GPU tests
 * (ModelWorkloadsGpuTest, RemainingModelWorkloadsGpuTest) assert the same of real NVML readings.
 */
class TelemetryOfEveryWorkloadTest {
    private static GpuTelemetry reading(int second, int smMhz, double watts, int celsius) {
        return new GpuTelemetry(Instant.ofEpochSecond(second), null,
                Map.of("sm_clock_mhz", smMhz, "power_w", watts, "temperature_c", celsius), Map.of());
    }

    @Test
    void everyResultHasTheReadingsBeforeAndAfterTheRun() throws Exception {
        WorkloadRegistry registry = WorkloadRegistry.onClassPath();
        List<String> needGpu = new ArrayList<>();
        List<String> recorded = new ArrayList<>();
        for (Workload listed : registry.all()) {
            if (listed.name().equals("launch_overhead")) {
                // its correctness check runs the codebook kernels' results, which the simulated session does not
                // compute; it runs through the same Harness.run as the others
                continue;
            }
            Workload w = registry.create(listed.name());
            SimulatedGpuSession gpu = new SimulatedGpuSession();
            gpu.serialEngine = false;
            // the first reading cool, every later one hot (copy_compute_overlap reads the PCIe link in between)
            gpu.nextTelemetry.add(reading(1, 1410, 71.5, 34));
            gpu.telemetry = reading(2, 1980, 312.5, 61);
            // copy_compute_overlap's check reads back what its copies carried, which the simulated device holds up
            // to 4 MiB
            HarnessOptions options = HarnessOptions.defaults(w.recommendedStreams()).withIterations(2, 0)
                    .withParams(w.name().equals("copy_compute_overlap") ? Map.of("copy_mib", "1") : Map.of());
            if (w instanceof ModelWorkload) {
                Throwable e = catchThrowable(() -> new Harness(Map.of(), false).run(w, options, gpu));
                assertThat(e).as(w.name()).hasMessageContaining("needs a GPU");
                needGpu.add(w.name());
                continue;
            }
            RunResult r = new Harness(Map.of(), false).run(w, options, gpu);
            JsonNode t = ResultJson.toJson(r).path("gpu_telemetry");
            assertThat(t.path("before").path("sm_clock_mhz").asInt()).as(w.name()).isEqualTo(1410);
            assertThat(t.path("before").path("power_w").asDouble()).as(w.name()).isEqualTo(71.5);
            assertThat(t.path("before").path("temperature_c").asInt()).as(w.name()).isEqualTo(34);
            assertThat(t.path("after").path("sm_clock_mhz").asInt()).as(w.name()).isEqualTo(1980);
            assertThat(t.path("after").path("power_w").asDouble()).as(w.name()).isEqualTo(312.5);
            assertThat(t.path("after").path("temperature_c").asInt()).as(w.name()).isEqualTo(61);
            recorded.add(w.name());
        }
        assertThat(recorded).contains("hetero_kernels", "tiny_kernel_stress", "large_gemm_only",
                "comms_compute_overlap", "copy_compute_overlap");
        assertThat(needGpu).containsExactlyInAnyOrder("graph_subgraphs", "zero_offload", "torch_compile", "fsdp_tp",
                "moe", "speculative_decode", "continuous_batch", "activation_ckpt", "grad_accum", "rag_pipeline",
                "async_dataload");
    }
}
