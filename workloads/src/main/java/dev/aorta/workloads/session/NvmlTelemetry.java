package dev.aorta.workloads.session;

import dev.aorta.gpu.nvml.Nvml;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** Reads {@link GpuTelemetry} of one GPU from NVML; each value that fails is recorded as missing with NVML's reason. */
final class NvmlTelemetry {
    private final Nvml.Device device;
    private final String unavailable;

    private NvmlTelemetry(Nvml.Device device, String unavailable) {
        this.device = device;
        this.unavailable = unavailable;
    }

    /** The GPU at CUDA's PCI bus id (NVML's device order need not be CUDA's). */
    static NvmlTelemetry forPciBusId(String pciBusId) {
        try {
            return new NvmlTelemetry(Nvml.get().deviceByPciBusId(pciBusId), null);
        } catch (RuntimeException | LinkageError e) {
            return new NvmlTelemetry(null, "NVML unavailable: " + e.getMessage());
        }
    }

    GpuTelemetry read() {
        if (device == null) {
            return GpuTelemetry.unavailable(unavailable);
        }
        Map<String, Number> values = new LinkedHashMap<>();
        Map<String, String> missing = new LinkedHashMap<>();
        put(values, missing, "sm_clock_mhz", device::smClockMHz);
        put(values, missing, "memory_clock_mhz", device::memoryClockMHz);
        put(values, missing, "power_w", () -> device.powerMilliwatts() / 1e3);
        put(values, missing, "power_limit_w", () -> device.powerLimitMilliwatts() / 1e3);
        put(values, missing, "temperature_c", device::temperatureC);
        put(values, missing, "gpu_utilization_pct", () -> device.utilizationPercent()[0]);
        put(values, missing, "memory_utilization_pct", () -> device.utilizationPercent()[1]);
        put(values, missing, "pcie_tx_kbps", device::pcieTxKBps);
        put(values, missing, "pcie_rx_kbps", device::pcieRxKBps);
        put(values, missing, "pcie_generation", device::pcieLinkGeneration);
        put(values, missing, "pcie_width", device::pcieLinkWidth);
        put(values, missing, "pcie_max_generation", device::pcieMaxLinkGeneration);
        put(values, missing, "pcie_max_width", device::pcieMaxLinkWidth);
        put(values, missing, "active_nvlinks", device::activeNvLinks);
        put(values, missing, "memory_bus_width_bits", device::memoryBusWidthBits);
        put(values, missing, "max_memory_clock_mhz", device::maxMemoryClockMHz);
        return new GpuTelemetry(Instant.now(), null, values, missing);
    }

    private static void put(Map<String, Number> values, Map<String, String> missing, String key, Supplier<Number> read) {
        try {
            values.put(key, read.get());
        } catch (RuntimeException e) {
            missing.put(key, e.getMessage());
        }
    }
}
