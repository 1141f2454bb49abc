package dev.aorta.core.metric;

import java.util.Arrays;

/**
 * The one percentile definition of aorta (docs/metrics.md#percentiles-and-scaling): linear interpolation between
 * closest ranks, numpy's default ({@code method="linear"}): for n sorted values and q in [0, 100], rank
 * r = q/100 · (n − 1), value = v[⌊r⌋] + (r − ⌊r⌋) · (v[⌊r⌋+1] − v[⌊r⌋]).
 */
public final class Percentiles {
    private Percentiles() {
    }

    /**
     * @param sorted values in ascending order, at least one
     * @param q      percentile in [0, 100]
     */
    public static double ofSorted(double[] sorted, double q) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("percentile of no values");
        }
        if (q < 0 || q > 100) {
            throw new IllegalArgumentException("percentile must be in [0, 100], got " + q);
        }
        double rank = q / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (rank - lo) * (sorted[hi] - sorted[lo]);
    }

    public static double of(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, q);
    }
}
