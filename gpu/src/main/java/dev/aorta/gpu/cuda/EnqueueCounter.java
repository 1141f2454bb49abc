package dev.aorta.gpu.cuda;

/**
 * How many host API calls have put work on a device's streams: kernel launches, cuBLAS GEMMs, cuBLASLt matmuls,
 * asynchronous copies and memsets, CUDA graph launches and NCCL calls (inside a group, each send and receive) each
 * count one, whatever the device then runs
 * for them (a graph launch is one call however many kernels the graph holds; a GEMM is one call even when cuBLAS
 * splits it into two kernels). Event records and stream waits order work but are not work, and are not counted.
 * Calls made while a stream captures a graph count too, though they only record work: capture belongs to setup.
 * It is the denominator of "host time per launch": what the host paid for, per call it made.
 *
 * <p>One per {@link CudaDevice}, reached through each {@link Stream} it made, so that every enqueue path (which all
 * take a stream) adds to it with one field increment: no allocation, no atomic. The price: calls made at the same
 * moment from two threads on one device may lose an increment; the harness enqueues from one thread, where the count
 * is exact.
 */
public final class EnqueueCounter {
    private long calls;

    /** Counts one enqueuing API call. */
    public void increment() {
        calls++;
    }

    /** The calls counted since the device was opened. */
    public long total() {
        return calls;
    }
}
