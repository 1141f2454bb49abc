package dev.aorta.gpu.cuda;

/**
 * What the driver says about a device.
 *
 * @param driverVersion CUDA driver API version, e.g. 13000 for 13.0
 */
public record DeviceInfo(int ordinal, String name, int multiprocessors, long totalMemoryBytes, int computeMajor,
                         int computeMinor, int driverVersion, long l2CacheBytes, int asyncEngines,
                         int leastStreamPriority, int greatestStreamPriority, String pciBusId) {

    /** The NVRTC/nvcc architecture name, e.g. "sm_90". */
    public String arch() {
        return "sm_" + computeMajor + computeMinor;
    }

    /** The compute capability as results print it, e.g. "9.0". */
    public String computeCapability() {
        return computeMajor + "." + computeMinor;
    }

    /** The stream priorities this device accepts. */
    public PriorityRange priorityRange() {
        return new PriorityRange(leastStreamPriority, greatestStreamPriority);
    }

    public String driverVersionText() {
        return (driverVersion / 1000) + "." + (driverVersion % 1000) / 10;
    }
}
