package dev.aorta.workloads.gpu;

/**
 * What the result files record about the device.
 *
 * @param computeCapability e.g. "9.0"
 * @param priorityRange     the stream priorities the device accepts
 */
public record DeviceInfo(int index, String name, String computeCapability, long totalMemoryBytes,
                         int multiprocessorCount, String driverVersion, PriorityRange priorityRange) {
}
