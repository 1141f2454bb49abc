package dev.aorta.workloads.session;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class GpuTelemetryTest {

    private static GpuTelemetry with(Map<String, Number> values) {
        return new GpuTelemetry(Instant.EPOCH, null, values, Map.of());
    }

    @Test
    void thePcieLimitIsLanesTimesTheRateOfTheHighestGenerationAfterLineCoding() {
        // gen4 x16: 16 GT/s x 128/130 / 8 bits x 16 lanes = 31.5 GB/s; gen5 x16 doubles it
        assertThat(with(Map.of("pcie_max_generation", 4, "pcie_max_width", 16)).pcieLimitGBps())
                .isCloseTo(31.51, within(0.01));
        assertThat(with(Map.of("pcie_max_generation", 5, "pcie_max_width", 16)).pcieLimitGBps())
                .isCloseTo(63.02, within(0.01));
        assertThat(with(Map.of("pcie_max_generation", 2, "pcie_max_width", 8)).pcieLimitGBps()).isEqualTo(4.0);
        assertThat(with(Map.of("pcie_max_generation", 4)).pcieLimitGBps()).isNull();
    }

    @Test
    void theMemoryLimitIsBusWidthTimesTwiceTheHighestMemoryClock() {
        // H100 SXM: 5120-bit HBM3 at 2619 MHz = 3352 GB/s
        assertThat(with(Map.of("memory_bus_width_bits", 5120, "max_memory_clock_mhz", 2619)).memoryLimitGBps())
                .isCloseTo(3352.3, within(0.1));
        assertThat(GpuTelemetry.unavailable("no NVML").memoryLimitGBps()).isNull();
    }
}
