package dev.aorta.gpu.blas;

/**
 * The element type of a GEMM's A and B, that of C, and how cuBLAS computes it.
 * {@code TF32} stores fp32 but lets the tensor cores round inputs to tf32 (CUBLAS_COMPUTE_32F_FAST_TF32).
 * {@code FP16_FP32} and {@code BF16_FP32} are mixed precision: 16-bit A and B, fp32 C, fp32 accumulation.
 */
public enum GemmPrecision {
    FP32(CudaDataType.R_32F, CudaDataType.R_32F, 4, Cublas.COMPUTE_32F),
    TF32(CudaDataType.R_32F, CudaDataType.R_32F, 4, Cublas.COMPUTE_32F_FAST_TF32),
    FP16(CudaDataType.R_16F, CudaDataType.R_16F, 2, Cublas.COMPUTE_32F),
    BF16(CudaDataType.R_16BF, CudaDataType.R_16BF, 2, Cublas.COMPUTE_32F),
    FP16_FP32(CudaDataType.R_16F, CudaDataType.R_32F, 2, Cublas.COMPUTE_32F),
    BF16_FP32(CudaDataType.R_16BF, CudaDataType.R_32F, 2, Cublas.COMPUTE_32F);

    /** A's and B's type. */
    final int dataType;
    /** C's type. */
    final int outputType;
    final int elementBytes;
    final int computeType;

    GemmPrecision(int dataType, int outputType, int elementBytes, int computeType) {
        this.dataType = dataType;
        this.outputType = outputType;
        this.elementBytes = elementBytes;
        this.computeType = computeType;
    }

    /** Bytes of an A or B element. */
    public int elementBytes() {
        return elementBytes;
    }

    /** Bytes of a C element. */
    public int outputBytes() {
        return outputType == dataType ? elementBytes : 4;
    }

    /** Parses a constant's name, e.g. "fp32", "bf16" or "bf16_fp32" (case-insensitive). */
    public static GemmPrecision parse(String s) {
        for (GemmPrecision p : values()) {
            if (p.name().equalsIgnoreCase(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + s + "'; expected one of "
                + java.util.Arrays.stream(values()).map(v -> v.name().toLowerCase(java.util.Locale.ROOT))
                .collect(java.util.stream.Collectors.joining(", ")));
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
