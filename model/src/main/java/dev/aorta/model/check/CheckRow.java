package dev.aorta.model.check;

/** One compared tensor of an op check: ‖ours − reference‖₂ / ‖reference‖₂ against its tolerance. */
public record CheckRow(String caseName, String tensor, long elements, double relL2, double tolerance) {

    public boolean passed() {
        return relL2 <= tolerance; // NaN fails
    }

    /** The relative L2 error; where the reference is all zeros, the absolute L2 norm of ours. */
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
        return ref == 0 ? Math.sqrt(diff) : Math.sqrt(diff / ref);
    }
}
