package dev.aorta.gpu.cuda;

import java.util.Map;

/**
 * The device allocator's accounting, in the sense PyTorch's {@code torch.cuda.memory_stats} uses:
 * allocated = bytes in live buffers (rounded to the allocator's granularity), reserved = bytes the
 * allocator holds from the driver (live buffers plus its cache). Peaks since creation or the last reset;
 * {@code atPeakByOwner}: the live bytes of each owner (the op that asked) at the allocated peak.
 */
public record MemoryStats(long allocatedBytes, long peakAllocatedBytes, long reservedBytes, long peakReservedBytes,
                          long allocations, long cacheHits, Map<String, Long> atPeakByOwner) {
    public MemoryStats {
        atPeakByOwner = Map.copyOf(atPeakByOwner);
    }

    public MemoryStats(long allocatedBytes, long peakAllocatedBytes, long reservedBytes, long peakReservedBytes,
                       long allocations, long cacheHits) {
        this(allocatedBytes, peakAllocatedBytes, reservedBytes, peakReservedBytes, allocations, cacheHits,
                Map.of());
    }
}
