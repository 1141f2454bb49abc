package dev.aorta.gpu.nvml;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NVML (libnvidia-ml.so.1) through FFM: the driver's version and per-device telemetry (PCIe throughput and link,
 * NVLinks, clocks, temperature, power, utilisation). NVML reads the GPU without a CUDA context, so sampling it does not
 * disturb the work being measured.
 */
public final class Nvml {
    private static final int PCIE_TX = 0;
    private static final int PCIE_RX = 1;
    private static final Lazy<Nvml> INSTANCE = new Lazy<>(Nvml::new);

    private final NativeLibrary lib;
    /** NVML_ERROR_NOT_SUPPORTED and NVML_ERROR_INVALID_ARGUMENT: asked beyond the device's last NVLink. */
    private static final int NOT_SUPPORTED = 3;
    private static final int INVALID_ARGUMENT = 2;
    /** NVML_NVLINK_MAX_LINKS of current NVML headers. */
    private static final int MAX_NVLINKS = 18;

    private final MethodHandle driverVersion, deviceCount, handleByIndex, handleByPciBusId, deviceName, pcieThroughput,
            clockInfo, temperature, powerUsage, powerLimit, utilization, linkGeneration, linkWidth, maxLinkGeneration,
            maxLinkWidth, nvLinkState, memoryBusWidth, maxClockInfo, errorString;

    private Nvml() {
        lib = NativeLibrary.load("NVML", "AORTA_NVML_LIBRARY", "libnvidia-ml.so.1", "libnvidia-ml.so");
        MethodHandle init = lib.function("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT));
        errorString = lib.function("nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        driverVersion = lib.function("nvmlSystemGetDriverVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        deviceCount = lib.function("nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        handleByIndex = lib.function("nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        deviceName = lib.function("nvmlDeviceGetName", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT));
        pcieThroughput = lib.function("nvmlDeviceGetPcieThroughput",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        clockInfo = lib.function("nvmlDeviceGetClockInfo", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        temperature = lib.function("nvmlDeviceGetTemperature", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        powerUsage = lib.function("nvmlDeviceGetPowerUsage", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        handleByPciBusId = lib.function("nvmlDeviceGetHandleByPciBusId_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        powerLimit = lib.function("nvmlDeviceGetEnforcedPowerLimit", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        utilization = lib.function("nvmlDeviceGetUtilizationRates", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        linkGeneration = lib.function("nvmlDeviceGetCurrPcieLinkGeneration",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        linkWidth = lib.function("nvmlDeviceGetCurrPcieLinkWidth", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        maxLinkGeneration = lib.function("nvmlDeviceGetMaxPcieLinkGeneration",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        maxLinkWidth = lib.function("nvmlDeviceGetMaxPcieLinkWidth", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        memoryBusWidth = lib.function("nvmlDeviceGetMemoryBusWidth", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        maxClockInfo = lib.function("nvmlDeviceGetMaxClockInfo", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        nvLinkState = lib.function("nvmlDeviceGetNvLinkState", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        try {
            check("nvmlInit_v2", (int) init.invokeExact());
        } catch (Throwable t) {
            throw Ffm.callFailed("nvmlInit_v2", t);
        }
    }

    /** The process-wide NVML (initialised on first use). */
    public static Nvml get() {
        return INSTANCE.get();
    }

    public NativeLibrary library() {
        return lib;
    }

    /** The kernel driver's version, e.g. "580.159.04". */
    public String driverVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(96);
            check("nvmlSystemGetDriverVersion", (int) driverVersion.invokeExact(buf, 96));
            return buf.getString(0);
        } catch (Throwable t) {
            throw Ffm.callFailed("nvmlSystemGetDriverVersion", t);
        }
    }

    public int deviceCount() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocate(JAVA_INT);
            check("nvmlDeviceGetCount_v2", (int) deviceCount.invokeExact(n));
            return n.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("nvmlDeviceGetCount_v2", t);
        }
    }

    /** NVML's handle of GPU {@code index} (NVML's order, which is PCI order like CUDA_DEVICE_ORDER=PCI_BUS_ID). */
    public Device device(int index) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(ADDRESS);
            check("nvmlDeviceGetHandleByIndex_v2(" + index + ")", (int) handleByIndex.invokeExact(index, h));
            return new Device(h.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw Ffm.callFailed("nvmlDeviceGetHandleByIndex_v2", t);
        }
    }

    /** The GPU at a PCI bus id as CUDA reports it ("0000:19:00.0"): the same GPU whatever the device order. */
    public Device deviceByPciBusId(String busId) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocateFrom(busId);
            MemorySegment h = a.allocate(ADDRESS);
            check("nvmlDeviceGetHandleByPciBusId_v2(" + busId + ")", (int) handleByPciBusId.invokeExact(id, h));
            return new Device(h.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw Ffm.callFailed("nvmlDeviceGetHandleByPciBusId_v2", t);
        }
    }

    /** One GPU's telemetry. */
    public final class Device {
        private final long handle;

        private Device(long handle) {
            this.handle = handle;
        }

        public String name() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(96);
                check("nvmlDeviceGetName", (int) deviceName.invokeExact(handle, buf, 96));
                return buf.getString(0);
            } catch (Throwable t) {
                throw Ffm.callFailed("nvmlDeviceGetName", t);
            }
        }

        /** PCIe transmit throughput in KB/s over NVML's last 20 ms sample window. */
        public long pcieTxKBps() {
            return uintQuery("nvmlDeviceGetPcieThroughput(TX)", pcieThroughput, PCIE_TX);
        }

        /** PCIe receive throughput in KB/s over NVML's last 20 ms sample window. */
        public long pcieRxKBps() {
            return uintQuery("nvmlDeviceGetPcieThroughput(RX)", pcieThroughput, PCIE_RX);
        }

        /** Current SM clock in MHz. */
        public long smClockMHz() {
            return uintQuery("nvmlDeviceGetClockInfo(SM)", clockInfo, 1);
        }

        /** Current memory clock in MHz. */
        public long memoryClockMHz() {
            return uintQuery("nvmlDeviceGetClockInfo(MEM)", clockInfo, 2);
        }

        /** GPU die temperature in °C. */
        public long temperatureC() {
            return uintQuery("nvmlDeviceGetTemperature", temperature, 0);
        }

        /** Board power draw in milliwatts. */
        public long powerMilliwatts() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                check("nvmlDeviceGetPowerUsage", (int) powerUsage.invokeExact(handle, v));
                return Integer.toUnsignedLong(v.get(JAVA_INT, 0));
            } catch (Throwable t) {
                throw Ffm.callFailed("nvmlDeviceGetPowerUsage", t);
            }
        }

        /** The enforced board power limit in milliwatts. */
        public long powerLimitMilliwatts() {
            return uintQuery("nvmlDeviceGetEnforcedPowerLimit", powerLimit);
        }

        /** Percent of the last sample period (1/6 s to 1 s) in which a kernel ran, and in which memory was read or written. */
        public int[] utilizationPercent() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(8);
                check("nvmlDeviceGetUtilizationRates", (int) utilization.invokeExact(handle, v));
                return new int[] {v.get(JAVA_INT, 0), v.get(JAVA_INT, 4)};
            } catch (Throwable t) {
                throw Ffm.callFailed("nvmlDeviceGetUtilizationRates", t);
            }
        }

        /** The PCIe link's current generation (an idle link may train down). */
        public long pcieLinkGeneration() {
            return uintQuery("nvmlDeviceGetCurrPcieLinkGeneration", linkGeneration);
        }

        /** The PCIe link's current width in lanes. */
        public long pcieLinkWidth() {
            return uintQuery("nvmlDeviceGetCurrPcieLinkWidth", linkWidth);
        }

        /** The highest PCIe generation the device and the slot support together. */
        public long pcieMaxLinkGeneration() {
            return uintQuery("nvmlDeviceGetMaxPcieLinkGeneration", maxLinkGeneration);
        }

        /** The widest PCIe link the device and the slot support together. */
        public long pcieMaxLinkWidth() {
            return uintQuery("nvmlDeviceGetMaxPcieLinkWidth", maxLinkWidth);
        }

        /** The memory bus width in bits. */
        public long memoryBusWidthBits() {
            return uintQuery("nvmlDeviceGetMemoryBusWidth", memoryBusWidth);
        }

        /** The highest memory clock in MHz. */
        public long maxMemoryClockMHz() {
            return uintQuery("nvmlDeviceGetMaxClockInfo(MEM)", maxClockInfo, 2);
        }

        /** How many of the device's NVLinks are up; 0 on a device without NVLink. */
        public int activeNvLinks() {
            int active = 0;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                for (int link = 0; link < MAX_NVLINKS; link++) {
                    int rc = (int) nvLinkState.invokeExact(handle, link, v);
                    if (rc == NOT_SUPPORTED || rc == INVALID_ARGUMENT) {
                        break; // past the device's last link, or no NVLink at all
                    }
                    check("nvmlDeviceGetNvLinkState(" + link + ")", rc);
                    active += v.get(JAVA_INT, 0) != 0 ? 1 : 0;
                }
                return active;
            } catch (Throwable t) {
                throw Ffm.callFailed("nvmlDeviceGetNvLinkState", t);
            }
        }

        private long uintQuery(String call, MethodHandle fn) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                check(call, (int) fn.invokeExact(handle, v));
                return Integer.toUnsignedLong(v.get(JAVA_INT, 0));
            } catch (Throwable t) {
                throw Ffm.callFailed(call, t);
            }
        }

        private long uintQuery(String call, MethodHandle fn, int which) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                check(call, (int) fn.invokeExact(handle, which, v));
                return Integer.toUnsignedLong(v.get(JAVA_INT, 0));
            } catch (Throwable t) {
                throw Ffm.callFailed(call, t);
            }
        }
    }

    private void check(String call, int rc) {
        if (rc != 0) {
            String text;
            try {
                text = Ffm.string((MemorySegment) errorString.invokeExact(rc));
            } catch (Throwable t) {
                text = "nvmlReturn_t " + rc;
            }
            throw new GpuException(call, rc, text);
        }
    }
}
