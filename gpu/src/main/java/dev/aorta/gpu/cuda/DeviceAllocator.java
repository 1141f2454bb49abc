package dev.aorta.gpu.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * A caching device allocator with accounting. Sizes are rounded up to {@link #GRANULARITY}; a freed
 * buffer is kept for the next request of the same rounded size instead of going back to the driver
 * (cuMemAlloc/cuMemFree synchronize the device, which would distort timings), until {@link #emptyCache}.
 * Each request names its owner (the op that asked, e.g. "linear"), and the live bytes per owner at the moment of
 * the peak are kept, so that a run can say what its peak memory was made of.
 */
public final class DeviceAllocator {
    /** Allocation granularity in bytes (cuMemAlloc's alignment is 256; 512 keeps PyTorch's rounding). */
    public static final long GRANULARITY = 512;

    private final CudaDevice device;
    private final Map<Long, ArrayDeque<CUdeviceptr>> cache = new HashMap<>();
    private final Map<String, Long> liveByOwner = new HashMap<>();
    private Map<String, Long> atPeakByOwner = Map.of();
    private long allocated;
    private long peakAllocated;
    private long reserved;
    private long peakReserved;
    private long allocations;
    private long cacheHits;

    DeviceAllocator(CudaDevice device) {
        this.device = device;
    }

    public static long round(long bytes) {
        return Math.max(GRANULARITY, (bytes + GRANULARITY - 1) / GRANULARITY * GRANULARITY);
    }

    /** A buffer of at least {@code bytes} bytes (contents undefined), owned by "other". */
    public DeviceBuffer allocate(long bytes) {
        return allocate(bytes, "other");
    }

    /** A buffer of at least {@code bytes} bytes (contents undefined), counted for {@code owner}. */
    public synchronized DeviceBuffer allocate(long bytes, String owner) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("device allocation of " + bytes + " bytes; expected a positive size");
        }
        long size = round(bytes);
        ArrayDeque<CUdeviceptr> free = cache.get(size);
        CUdeviceptr ptr = free == null ? null : free.pollFirst();
        if (ptr != null) {
            cacheHits++;
        } else {
            device.makeCurrent();
            ptr = new CUdeviceptr();
            int rc = JCudaDriver.cuMemAlloc(ptr, size);
            if (rc == jcuda.driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY && reserved > allocated) {
                emptyCacheLocked();
                rc = JCudaDriver.cuMemAlloc(ptr, size);
            }
            Cu.check("cuMemAlloc(" + size + " bytes)", rc);
            reserved += size;
            peakReserved = Math.max(peakReserved, reserved);
        }
        allocations++;
        allocated += size;
        liveByOwner.merge(owner, size, Long::sum);
        if (allocated > peakAllocated) {
            peakAllocated = allocated;
            atPeakByOwner = null; // copied when asked: a new peak is reached many times in a row at set-up
        }
        return new DeviceBuffer(this, ptr, bytes, size, owner);
    }

    synchronized void release(DeviceBuffer buffer) {
        snapshotPeakIfPending();
        allocated -= buffer.roundedBytes();
        liveByOwner.merge(buffer.owner(), -buffer.roundedBytes(), Long::sum);
        cache.computeIfAbsent(buffer.roundedBytes(), k -> new ArrayDeque<>()).addFirst(buffer.pointer());
    }

    /** Returns every cached (free) buffer to the driver. */
    public synchronized void emptyCache() {
        emptyCacheLocked();
    }

    private void emptyCacheLocked() {
        device.makeCurrent();
        for (Map.Entry<Long, ArrayDeque<CUdeviceptr>> e : cache.entrySet()) {
            for (CUdeviceptr p : e.getValue()) {
                Cu.check("cuMemFree", JCudaDriver.cuMemFree(p));
                reserved -= e.getKey();
            }
        }
        cache.clear();
    }

    public synchronized MemoryStats stats() {
        snapshotPeakIfPending();
        return new MemoryStats(allocated, peakAllocated, reserved, peakReserved, allocations, cacheHits,
                atPeakByOwner);
    }

    /** The bytes of {@code owner}'s live buffers now (rounded as {@link #stats()} counts them). */
    public synchronized long liveBytes(String owner) {
        return liveByOwner.getOrDefault(owner, 0L);
    }

    /** Starts the peak counters again from the current values. */
    public synchronized void resetPeaks() {
        peakAllocated = allocated;
        peakReserved = reserved;
        atPeakByOwner = null;
    }

    /** The live bytes per owner are those of the peak until something is released after it. */
    private void snapshotPeakIfPending() {
        if (atPeakByOwner == null) {
            Map<String, Long> live = new HashMap<>();
            liveByOwner.forEach((k, v) -> {
                if (v > 0) {
                    live.put(k, v);
                }
            });
            atPeakByOwner = Map.copyOf(live);
        }
    }
}
