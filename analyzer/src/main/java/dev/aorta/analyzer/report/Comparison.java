package dev.aorta.analyzer.report;

import org.apache.commons.statistics.inference.MannWhitneyUTest;
import org.apache.commons.statistics.inference.TTest;

/**
 * A candidate run against a reference run on one metric, over their per-iteration values: the means, the delta
 * (candidate − reference), the ratio (candidate / reference, NaN when the reference mean is 0), Welch's t-test and
 * the Mann-Whitney U test p-values (two-sided; NaN with fewer than 2 values on a side), and whether the difference
 * is significant at 5% by Welch's test.
 */
public record Comparison(Metric metric, int referenceCount, double referenceMean, int candidateCount,
                         double candidateMean, double delta, double ratio, double welchP, double mannWhitneyP,
                         boolean significant) {

    public static Comparison of(Metric metric, double[] reference, double[] candidate) {
        double refMean = Aggregate.mean(reference);
        double candMean = Aggregate.mean(candidate);
        double welch = Double.NaN;
        double mw = Double.NaN;
        if (reference.length >= 2 && candidate.length >= 2) {
            if (Aggregate.variance(reference) + Aggregate.variance(candidate) > 0) {
                welch = TTest.withDefaults().test(reference, candidate).getPValue();
            } else {
                welch = refMean == candMean ? 1.0 : 0.0; // no spread: the means differ exactly or not at all
            }
            mw = MannWhitneyUTest.withDefaults().test(reference, candidate).getPValue();
        }
        return new Comparison(metric, reference.length, refMean, candidate.length, candMean, candMean - refMean,
                refMean == 0 ? Double.NaN : candMean / refMean, welch, mw, !Double.isNaN(welch) && welch < 0.05);
    }
}
