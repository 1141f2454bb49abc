package dev.aorta.workloads.session;

/**
 * Shape of a column-major GEMM {@code C[m×n] = A[m×k]·B[k×n]} (lda = m, ldb = k, ldc = m), {@code batch}
 * times with contiguous matrices (strides m·k, k·n, m·n elements) when batch &gt; 1. A, B and C all have
 * {@code dtype}'s storage type; accumulation is fp32 ({@code CUBLAS_COMPUTE_32F}, for TF32
 * {@code CUBLAS_COMPUTE_32F_FAST_TF32}).
 */
public record GemmSpec(DType dtype, int m, int n, int k, int batch) {
    public GemmSpec {
        if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) {
            throw new IllegalArgumentException("GEMM dimensions must be positive: m=" + m + " n=" + n
                    + " k=" + k + " batch=" + batch);
        }
    }

    public static GemmSpec square(DType dtype, int size) {
        return new GemmSpec(dtype, size, size, size, 1);
    }

    /** Floating-point operations: 2·m·n·k per matrix product. */
    public double flops() {
        return 2.0 * m * n * k * batch;
    }

    public long bytesA() {
        return (long) m * k * batch * dtype.bytes();
    }

    public long bytesB() {
        return (long) k * n * batch * dtype.bytes();
    }

    public long bytesC() {
        return (long) m * n * batch * dtype.bytes();
    }

    public String describe() {
        return dtype.label() + " " + m + "x" + n + "x" + k + (batch > 1 ? " x" + batch : "");
    }
}
