package dev.aorta.gpu.blas;

/**
 * The element type of a GEMM's A, B and C, and how cuBLAS computes it.
 * {@code TF32} stores fp32 but lets the tensor cores round inputs to tf32 (CUBLAS_COMPUTE_32F_FAST_TF32).
 */
public enum GemmPrecision {
    FP32(CudaDataType.R_32F, 4, Cublas.COMPUTE_32F),
    TF32(CudaDataType.R_32F, 4, Cublas.COMPUTE_32F_FAST_TF32),
    FP16(CudaDataType.R_16F, 2, Cublas.COMPUTE_32F),
    BF16(CudaDataType.R_16BF, 2, Cublas.COMPUTE_32F);

    final int dataType;
    final int elementBytes;
    final int computeType;

    GemmPrecision(int dataType, int elementBytes, int computeType) {
        this.dataType = dataType;
        this.elementBytes = elementBytes;
        this.computeType = computeType;
    }

    public int elementBytes() {
        return elementBytes;
    }

    /** Parses "fp32", "tf32", "fp16", "bf16" (case-insensitive). */
    public static GemmPrecision parse(String s) {
        for (GemmPrecision p : values()) {
            if (p.name().equalsIgnoreCase(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + s + "'; expected one of fp32, tf32, fp16, bf16");
    }

    /** CUDA's cudaDataType_t values (library_types.h). */
    static final class CudaDataType {
        static final int R_32F = 0;
        static final int R_16F = 2;
        static final int R_16BF = 14;

        private CudaDataType() {
        }
    }
}
