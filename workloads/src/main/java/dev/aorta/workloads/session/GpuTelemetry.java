package dev.aorta.workloads.session;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reading of the GPU's state from NVML (clocks, power, temperature, utilisation, PCIe), taken before and after
 * a run so that a throttled or still-hot GPU is visible next to its numbers. A value NVML could not give is absent
 * from {@code values} and its reason is in {@code missing}; without NVML at all, {@code unavailable} says why.
 *
 * <p>Keys of {@code values}: {@code sm_clock_mhz}, {@code memory_clock_mhz}, {@code power_w}, {@code power_limit_w},
 * {@code temperature_c}, {@code gpu_utilization_pct}, {@code memory_utilization_pct}, {@code pcie_tx_kbps},
 * {@code pcie_rx_kbps}, {@code pcie_generation}, {@code pcie_width}, {@code pcie_max_generation},
 * {@code pcie_max_width}, {@code active_nvlinks}, {@code memory_bus_width_bits}, {@code max_memory_clock_mhz}.
 */
public record GpuTelemetry(Instant at, String unavailable, Map<String, Number> values, Map<String, String> missing) {

    public GpuTelemetry {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        missing = Collections.unmodifiableMap(new LinkedHashMap<>(missing));
    }

    public static GpuTelemetry unavailable(String reason) {
        return new GpuTelemetry(Instant.now(), reason, Map.of(), Map.of());
    }

    public boolean available() {
        return unavailable == null;
    }

    /** A value by key, or null when NVML did not give it. */
    public Number value(String key) {
        return values.get(key);
    }

    /**
     * The PCIe link's theoretical one-direction payload bandwidth in GB/s (10^9 B) at the highest generation and
     * width the device and slot support (the current link trains down while idle): lanes x transfer rate x line
     * coding; null when NVML gave neither.
     */
    public Double pcieLimitGBps() {
        Number gen = values.get("pcie_max_generation");
        Number width = values.get("pcie_max_width");
        if (gen == null || width == null) {
            return null;
        }
        double perLaneGBps = switch (gen.intValue()) {
            case 1 -> 2.5 * 8 / 10 / 8;        // 2.5 GT/s, 8b/10b
            case 2 -> 5.0 * 8 / 10 / 8;        // 5 GT/s, 8b/10b
            case 3 -> 8.0 * 128 / 130 / 8;     // 8 GT/s, 128b/130b
            case 4 -> 16.0 * 128 / 130 / 8;
            case 5 -> 32.0 * 128 / 130 / 8;
            case 6 -> 64.0 * 242 / 256 / 8;    // 64 GT/s PAM4, FLIT mode: 242 payload bytes of 256
            default -> Double.NaN;
        };
        return Double.isNaN(perLaneGBps) ? null : perLaneGBps * width.intValue();
    }

    /**
     * The device memory's theoretical bandwidth in GB/s: bus width x highest memory clock x 2 (double data rate);
     * a device-to-device copy reads and writes every byte, so it can reach at most half of it. Null when NVML gave
     * neither.
     */
    public Double memoryLimitGBps() {
        Number bits = values.get("memory_bus_width_bits");
        Number mhz = values.get("max_memory_clock_mhz");
        if (bits == null || mhz == null) {
            return null;
        }
        return bits.doubleValue() / 8 * mhz.doubleValue() * 1e6 * 2 / 1e9;
    }
}
