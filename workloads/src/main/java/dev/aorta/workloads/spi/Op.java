package dev.aorta.workloads.spi;

/**
 * One unit of enqueued device work (a kernel launch or a GEMM) made through {@link WorkloadContext},
 * so that the harness can time it with event pairs when CUPTI is unavailable.
 */
public interface Op {

    /** Enqueues the work on its stream. */
    void run();
}
