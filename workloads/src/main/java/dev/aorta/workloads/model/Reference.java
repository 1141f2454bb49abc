package dev.aorta.workloads.model;

import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefLinear;

/** Float64 references of the model workloads' layers (the model module's references) and the comparison rule. */
final class Reference {
    /** fp32 GEMMs (no TF32) over k up to a few thousand stay within about 1e-6 of float64; 1e-4 leaves room. */
    static final double TOLERANCE = 1e-4;

    private Reference() {
    }

    static double[] doubles(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    /** x·Wᵀ + b, then GELU when {@code gelu}. */
    static double[] linear(double[] x, float[] w, float[] b, int rows, int in, int out, boolean gelu) {
        double[] y = RefLinear.forward(x, doubles(w), doubles(b), rows, in, out);
        return gelu ? RefElementwise.gelu(y) : y;
    }

    /** ||got − want|| / ||want|| (absolute when want is 0). */
    static double relL2(float[] got, double[] want) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < want.length; i++) {
            double d = got[i] - want[i];
            diff += d * d;
            norm += want[i] * want[i];
        }
        return norm < 1e-20 ? Math.sqrt(diff) : Math.sqrt(diff / norm);
    }

    /** Empty when within {@link #TOLERANCE}; else one sentence naming the tensor and the error. */
    static java.util.Optional<String> compare(String what, float[] got, double[] want) {
        return compare(what, got, want, TOLERANCE);
    }

    /** As {@link #compare(String, float[], double[])} with another tolerance (tensor-core GEMMs). */
    static java.util.Optional<String> compare(String what, float[] got, double[] want, double tolerance) {
        if (got.length != want.length) {
            return java.util.Optional.of(what + ": " + got.length + " values, expected " + want.length);
        }
        double e = relL2(got, want);
        return e <= tolerance && !Double.isNaN(e) ? java.util.Optional.empty()
                : java.util.Optional.of(what + ": relative L2 error " + e + " against the float64 reference (tolerance "
                + tolerance + ")");
    }
}
