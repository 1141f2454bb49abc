package dev.aorta.workloads.gpu;

/**
 * Device memory by the runtime's accounting: {@code allocated} is what live buffers hold,
 * {@code reserved} what the runtime holds from the driver (equal to allocated without a caching allocator);
 * peaks since the session opened.
 */
public record MemoryStats(long allocatedBytes, long peakAllocatedBytes, long reservedBytes, long peakReservedBytes) {
}
