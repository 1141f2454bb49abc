package dev.aorta.workloads.session;

/** Device memory owned by a {@link GpuSession}. */
public interface GpuBuffer extends AutoCloseable {

    /** The device address, as passed to kernels. */
    long address();

    long bytes();

    /** Frees the memory; idempotent. */
    @Override
    void close();
}
