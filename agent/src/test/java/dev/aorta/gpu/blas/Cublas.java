package dev.aorta.gpu.blas;

import dev.aorta.gpu.cuda.Stream;
import example.fakegpu.FakeGpu;

/** Test double of the aorta-gpu cuBLAS binding: the handle's stream in field {@code stream}, real gemm shapes. */
public final class Cublas {
    private long stream;

    public Cublas(Stream stream) {
        setStream(stream);
    }

    public void setStream(Stream s) {
        this.stream = s.address();
    }

    /** m·n·k/1000 ns on the fake device. */
    public void gemm(Object precision, boolean transA, boolean transB, int m, int n, int k, float alpha,
                     long a, int lda, long b, int ldb, float beta, long c, int ldc) {
        FakeGpu.run("KERNEL", "sm90_xmma_gemm_f32f32", stream, (long) m * n * k / 1000, 0, 1, 1, "cuLaunchKernel");
    }

    /** The convenience overload: calls the 14-argument one, as the real binding does. */
    public void gemm(Object precision, int m, int n, int k, long a, long b, long c) {
        gemm(precision, false, false, m, n, k, 1f, a, m, b, k, 0f, c, m);
    }

    public void gemmStridedBatched(Object precision, int m, int n, int k, long a, long strideA, long b, long strideB,
                                   long c, long strideC, int batch) {
        FakeGpu.run("KERNEL", "sm90_xmma_gemm_batched", stream, (long) m * n * k * batch / 1000, 0, 1, 1,
                "cuLaunchKernel");
    }
}
