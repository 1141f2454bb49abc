package dev.aorta.workloads.copy;

import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.session.SimulatedGpuSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * On the simulated device copies run on copy engines beside the one compute engine at 25 GB/s (the host link) and
 * 1500 GB/s (device to device), so overlap can hide the shorter of GEMM and copy entirely.
 */
class CopyComputeOverlapTest {

    private static RunResult run(SimulatedGpuSession gpu, Map<String, String> params) {
        HarnessOptions options = HarnessOptions.defaults(2).withIterations(4, 1).withParams(params);
        return new Harness(Map.of(), false).run(new CopyComputeOverlap(), options, gpu);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> direction(RunResult r, String d) {
        return (Map<String, Object>) r.workloadResults().get(d);
    }

    /** What each copy carried is checked bit for bit, for every set of directions; a copy that corrupts one is caught. */
    @ParameterizedTest
    @CsvSource({"all, ", "h2d, ", "d2h, ", "d2d, ", "all, Memcpy HtoD", "all, Memcpy DtoH", "d2d, Memcpy DtoD"})
    void theCopiesCarryTheirSourcesBitForBit(String directions, String corrupted) {
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        gpu.miscomputed = corrupted;
        RunResult r = run(gpu, Map.of("copy_mib", "1", "matrix", "256", "directions", directions));
        assertThat(r.correctness().checked()).isTrue();
        if (corrupted == null) {
            assertThat(r.correctness().problem()).isNull();
        } else {
            assertThat(r.correctness().problem()).startsWith("copy_compute_overlap: word 262143 of the ")
                    .contains("expected");
        }
    }

    @Test
    void overlapHidesTheShorterOfGemmAndCopyAndTheSequentialPhaseIsTheirSum() {
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        RunResult r = run(gpu, Map.of("copy_mib", "4", "matrix", "1024"));
        for (String d : new String[] {"h2d", "d2h", "d2d"}) {
            Map<String, Object> m = direction(r, d);
            double gemm = (double) m.get("gemm_ms");
            double copy = (double) m.get("copy_ms");
            assertThat((double) m.get("sequential_ms")).as(d).isGreaterThanOrEqualTo(gemm + copy - 1e-9);
            assertThat((double) m.get("overlapped_ms")).as(d).isCloseTo(Math.max(gemm, copy), within(0.01));
            assertThat((double) m.get("hidden_pct_of_shorter")).as(d).isGreaterThan(90);
            assertThat((double) m.get("savings_pct")).as(d).isPositive();
        }
        assertThat((double) direction(r, "h2d").get("copy_gbps")).isCloseTo(25, within(0.1));
        assertThat((double) direction(r, "d2d").get("copy_gbps")).isCloseTo(1500, within(10.0));
        assertThat(r.workloadResults().get("copy_engines")).isEqualTo(3);
        assertThat(direction(r, "h2d").get("limit_gbps")).isNull();
        assertThat(direction(r, "h2d").get("limit_source")).isEqualTo("simulated GPU session: no NVML");
        assertThat(r.streams().get(1).priority()).isEqualTo(gpu.deviceInfo().priorityRange().greatest());
        assertThat(r.streams().get(1).role()).isEqualTo("copy");
        assertThat(gpu.liveHostBuffers).isZero();
    }

    @Test
    void copyBandwidthIsComparedWithThePcieLinkAndDeviceCopiesWithHalfTheMemoryBandwidth() {
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        gpu.telemetry = new GpuTelemetry(Instant.EPOCH, null, Map.of("pcie_max_generation", 4, "pcie_max_width", 16,
                "memory_bus_width_bits", 5120, "max_memory_clock_mhz", 2619), Map.of());
        RunResult r = run(gpu, Map.of("copy_mib", "4", "matrix", "1024"));
        assertThat((double) direction(r, "d2h").get("limit_gbps")).isCloseTo(31.5, within(0.1));
        assertThat((double) direction(r, "d2h").get("pct_of_limit")).isCloseTo(100 * 25 / 31.5, within(0.5));
        assertThat((double) direction(r, "d2d").get("limit_gbps")).isCloseTo(1676, within(1.0));
        assertThat((String) direction(r, "d2h").get("limit_source")).contains("PCIe gen 4 x16");
    }

    @Test
    void oneDirectionCanBeAskedFor() {
        RunResult r = run(new SimulatedGpuSession(), Map.of("copy_mib", "1", "matrix", "256", "directions", "d2h"));
        assertThat(r.workloadResults()).containsKey("d2h").doesNotContainKeys("h2d", "d2d");
        assertThat(r.throughput().unit()).isEqualTo("GB/s copied");
    }

    @Test
    void withoutDeviceRecordsOfTheCopiesItSaysSoInsteadOfGuessing() {
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        gpu.captureUnavailable = "CUPTI not found: test";
        RunResult r = run(gpu, Map.of("copy_mib", "1", "matrix", "256"));
        assertThat((String) r.workloadResults().get("unavailable")).startsWith("needs the device records of every copy");
    }
}
