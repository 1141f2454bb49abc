package dev.aorta.workloads.session;

/** A cuBLAS GEMM with fixed operands and stream; enqueue it as often as wanted. */
public interface PreparedGemm {

    /** Sets the handle's stream if needed and enqueues the GEMM. */
    void launch();
}
