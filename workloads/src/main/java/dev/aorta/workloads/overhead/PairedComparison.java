package dev.aorta.workloads.overhead;

import dev.aorta.core.metric.Percentiles;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * Compares one metric (lower is better: a time) of runs without (A) and with (B) an interposer, run in
 * alternation A B A B...: pair i is (A_i, B_i), neighbours in time, so slow drift of the machine cancels.
 * The ratio B/A is the geometric mean of the paired ratios B_i/A_i; its 95% confidence interval is Student's
 * t interval of the mean log ratio (n − 1 degrees of freedom), transformed back.
 */
public record PairedComparison(String metric, double[] a, double[] b, double medianA, double medianB,
                               double ratio, double ciLow, double ciHigh, Verdict verdict) {
    public static final double CONFIDENCE = 0.95;

    /** B/A against 1 + threshold, using the interval, not the point estimate. */
    public enum Verdict {
        /** The whole interval is at or below 1 + threshold: B is at most threshold slower. */
        WITHIN("within threshold"),
        /** The whole interval is above 1 + threshold: B is slower by more than the threshold. */
        EXCEEDS("exceeds threshold"),
        /** The interval contains 1 + threshold: more runs are needed to tell. */
        INCONCLUSIVE("inconclusive");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * @param a         the metric of the A runs, in run order
     * @param b         the metric of the B runs, in the same order (B_i ran right after A_i)
     * @param threshold the tolerated slowdown, e.g. 0.01 for 1%
     */
    public static PairedComparison of(String metric, double[] a, double[] b, double threshold) {
        if (a.length != b.length || a.length < 2) {
            throw new IllegalArgumentException(metric + ": needs at least 2 A and 2 B values in pairs, got "
                    + a.length + " and " + b.length);
        }
        int n = a.length;
        double[] logRatios = new double[n];
        double mean = 0;
        for (int i = 0; i < n; i++) {
            if (!(a[i] > 0) || !(b[i] > 0)) {
                throw new IllegalArgumentException(metric + ": run " + (i + 1) + " has a non-positive value (A " + a[i]
                        + ", B " + b[i] + "); a ratio needs positive times");
            }
            logRatios[i] = Math.log(b[i] / a[i]);
            mean += logRatios[i];
        }
        mean /= n;
        double squares = 0;
        for (double r : logRatios) {
            squares += (r - mean) * (r - mean);
        }
        double standardError = Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
        double t = TDistribution.of(n - 1).inverseCumulativeProbability(0.5 + CONFIDENCE / 2);
        double low = Math.exp(mean - t * standardError);
        double high = Math.exp(mean + t * standardError);
        double limit = 1 + threshold;
        Verdict verdict = high <= limit ? Verdict.WITHIN : low > limit ? Verdict.EXCEEDS : Verdict.INCONCLUSIVE;
        return new PairedComparison(metric, a.clone(), b.clone(), Percentiles.of(a, 50), Percentiles.of(b, 50),
                Math.exp(mean), low, high, verdict);
    }
}
