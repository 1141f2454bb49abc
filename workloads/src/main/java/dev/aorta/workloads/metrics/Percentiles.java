package dev.aorta.workloads.metrics;

import java.util.Arrays;

/** Percentiles by linear interpolation between closest ranks (numpy's default, docs/metrics.md#percentiles-and-scaling). */
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
