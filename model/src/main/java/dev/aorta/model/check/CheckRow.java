package dev.aorta.model.check;

/** One compared tensor of an op check: ‖ours − reference‖₂ / ‖reference‖₂ against its tolerance. */
public record CheckRow(String caseName, String tensor, long elements, double relL2, double tolerance) {

    public boolean passed() {
        return relL2 <= tolerance; // NaN fails
    }

    /** A reference of smaller L2 norm is zero up to float64 rounding: compared by absolute error. */
    public static final double ZERO_NORM = 1e-10;

    /**
     * The relative L2 error; where the reference is zero up to float64 rounding (e.g. layer norm's weight
     * gradient over a single feature, exactly 0), the absolute L2 error, as scripts/model-ops-check.py does.
     */
    public static double relL2(float[] ours, double[] reference) {
        if (ours.length != reference.length) {
            throw new IllegalArgumentException(ours.length + " values compared with " + reference.length);
        }
        double diff = 0;
        double ref = 0;
        for (int i = 0; i < ours.length; i++) {
            double d = ours[i] - reference[i];
            diff += d * d;
            ref += reference[i] * reference[i];
        }
        return Math.sqrt(ref) < ZERO_NORM ? Math.sqrt(diff) : Math.sqrt(diff / ref);
    }
}
