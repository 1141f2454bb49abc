package dev.aorta.workloads.p0;

import dev.aorta.workloads.spi.RandomValues;

import java.util.List;

/**
 * Host reference of kernels/fill.cu and kernels/elementwise.cu, for the correctness checks: the fill is
 * reproduced bit for bit; add, mul and relu are exact in fp32; scale's tanhf may differ from Java's tanh
 * by a few ulp and the device may fuse its multiply-add, which the map keeps bounded (it contracts).
 */
final class ElementwiseReference {
    /** Largest |device − host| accepted after any number of iterations. */
    static final float TOLERANCE = 1e-4f;

    private ElementwiseReference() {
    }

    static float[] uniforms(int count, int seed) {
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = RandomValues.uniform(i, seed);
        }
        return v;
    }

    /** Applies {@code kernels} (names of elementwise.cu) in order, {@code repeat} times, to x in place. */
    static void apply(float[] x, float[] y, List<String> kernels, long repeat) {
        for (long r = 0; r < repeat; r++) {
            for (String k : kernels) {
                for (int i = 0; i < x.length; i++) {
                    x[i] = switch (k) {
                        case "vec_add" -> x[i] + y[i];
                        case "vec_mul" -> x[i] * y[i];
                        case "vec_relu" -> x[i] > 0 ? x[i] : 0;
                        case "vec_scale" -> (float) Math.tanh(ElementwiseOps.SCALE_A * x[i] + ElementwiseOps.SCALE_B);
                        default -> throw new IllegalArgumentException("no host reference for " + k);
                    };
                }
            }
        }
    }

    /** Empty when device and host agree within {@link #TOLERANCE}, else where they first differ. */
    static java.util.Optional<String> firstMismatch(String what, float[] device, float[] host) {
        for (int i = 0; i < host.length; i++) {
            if (!(Math.abs(device[i] - host[i]) <= TOLERANCE)) {
                return java.util.Optional.of(what + "[" + i + "] is " + device[i] + " on the device, " + host[i]
                        + " by the host reference");
            }
        }
        return java.util.Optional.empty();
    }
}
