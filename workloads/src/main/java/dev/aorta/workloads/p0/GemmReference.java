package dev.aorta.workloads.p0;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.spi.RandomValues;

/**
 * Host reference of one entry of a column-major GEMM on fill.cu's operands: {@code C[i,j] = Σ_l A[i,l]·B[l,j]} in
 * float64, over A and B rounded to the storage type as fill.cu rounds them (bf16 to nearest even, fp16 to nearest;
 * TF32 operands are stored in fp32 and rounded to 10 mantissa bits inside the GEMM, which the tolerance allows for).
 *
 * <p>The tolerance is 8 standard deviations of what the device may differ by: the rounding of C to its storage type
 * (half an ulp, relative 2^-9 for bf16, 2^-12 for fp16), TF32's rounding of both operands (relative 2^-11 each, summed
 * over k random products of U(-1, 1) values, whose root mean square is 1/3) and fp32 accumulation in any order
 * (2^-24 per addition, over sums whose spread is √k/3). A wrong GEMM (a transposed operand, a wrong stream's operands,
 * a stale C) is off by about √k/3, which is 30 at 8192, against a tolerance under 0.3 there.
 */
final class GemmReference {
    private GemmReference() {
    }

    /** {@code C[i,j]} of {@code spec} with A filled with seed {@code seedA} and B with {@code seedB}, in float64. */
    static double entry(GemmSpec spec, int seedA, int seedB, int i, int j) {
        double sum = 0;
        for (int l = 0; l < spec.k(); l++) {
            double a = stored(spec.dtype(), RandomValues.uniform(i + (long) l * spec.m(), seedA));
            double b = stored(spec.dtype(), RandomValues.uniform(l + (long) j * spec.k(), seedB));
            sum += a * b;
        }
        return sum;
    }

    /** The value a float has once stored in {@code dtype}, as fill.cu and the GEMM's output store it. */
    static float stored(DType dtype, float v) {
        return switch (dtype) {
            case FP32, TF32 -> v;
            case BF16 -> {
                int bits = Float.floatToRawIntBits(v);
                bits += 0x7FFF + ((bits >>> 16) & 1);
                yield Float.intBitsToFloat(bits & 0xFFFF0000);
            }
            case FP16 -> Float.float16ToFloat(Float.floatToFloat16(v));
        };
    }

    /** Element {@code index} of a {@code dtype} buffer read back as 32-bit words (little-endian device memory). */
    static float element(DType dtype, int[] words, long index) {
        return switch (dtype) {
            case FP32, TF32 -> Float.intBitsToFloat(words[(int) index]);
            case BF16 -> Float.intBitsToFloat(half(words, index) << 16);
            case FP16 -> Float.float16ToFloat((short) half(words, index));
        };
    }

    private static int half(int[] words, long index) {
        return (words[(int) (index / 2)] >>> (16 * (int) (index % 2))) & 0xFFFF;
    }

    /** The largest |device − reference| accepted for an entry whose reference is {@code reference}. */
    static double tolerance(DType dtype, int k, double reference) {
        double outputRounding = switch (dtype) {
            case FP32, TF32 -> 0x1p-24;
            case BF16 -> 0x1p-9;
            case FP16 -> 0x1p-12;
        };
        double spread = Math.sqrt(k) / 3;   // of C's entries, and of the products' root-mean-square sum
        double operandRounding = dtype == DType.TF32 ? Math.sqrt(2) * 0x1p-11 / Math.sqrt(3) * spread : 0;
        double accumulation = 0x1p-24 * Math.sqrt(k) * spread;
        return 8 * (outputRounding * Math.abs(reference) + operandRounding + accumulation);
    }
}
