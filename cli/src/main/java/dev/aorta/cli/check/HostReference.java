package dev.aorta.cli.check;

import java.util.SplittableRandom;

/** CPU references and number formats for the GPU check: float64 GEMM, bf16 rounding, relative error. */
final class HostReference {
    private HostReference() {
    }

    static float[] randomFloats(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return a;
    }

    /** C = A·B in float64, column-major, A m×k, B k×n. */
    static double[] gemm(double[] a, double[] b, int m, int n, int k) {
        double[] c = new double[m * n];
        for (int j = 0; j < n; j++) {
            for (int l = 0; l < k; l++) {
                double blj = b[l + j * k];
                for (int i = 0; i < m; i++) {
                    c[i + j * m] += a[i + l * m] * blj;
                }
            }
        }
        return c;
    }

    /** ‖out − ref‖₂ / ‖ref‖₂; NaN anywhere gives NaN (never passes). */
    static double relativeError(double[] out, double[] ref) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < ref.length; i++) {
            double d = out[i] - ref[i];
            num += d * d;
            den += ref[i] * ref[i];
        }
        return Math.sqrt(num / den);
    }

    static double[] widen(float[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i];
        }
        return d;
    }

    /** float → bf16 bits, round to nearest even. */
    static short toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    static float fromBf16(short h) {
        return Float.intBitsToFloat((h & 0xffff) << 16);
    }

    static short toFp16(float f) {
        return Float.floatToFloat16(f);
    }

    static float fromFp16(short h) {
        return Float.float16ToFloat(h);
    }
}
