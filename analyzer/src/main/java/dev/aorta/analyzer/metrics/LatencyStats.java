package dev.aorta.analyzer.metrics;

import java.util.Arrays;

/**
 * Summary of a set of durations in ns: count, mean, p50, p95, p99 (linear interpolation between closest ranks,
 * numpy's default), min and max. All zero when there are no samples.
 */
public record LatencyStats(long count, double meanNs, double p50Ns, double p95Ns, double p99Ns, long minNs, long maxNs) {
    public static final LatencyStats NONE = new LatencyStats(0, 0, 0, 0, 0, 0, 0);

    public static LatencyStats of(long[] samples, int n) {
        if (n == 0) {
            return NONE;
        }
        long[] s = Arrays.copyOf(samples, n);
        Arrays.sort(s);
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        return new LatencyStats(n, sum / n, percentile(s, 50), percentile(s, 95), percentile(s, 99), s[0], s[n - 1]);
    }

    /** The q-th percentile of sorted values, interpolating linearly between ranks (numpy "linear"). */
    public static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        double pos = (sorted.length - 1) * q / 100.0;
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }

    /** A growable array of samples, to avoid boxing millions of longs. */
    public static final class Samples {
        private long[] values = new long[64];
        private int n;

        public void add(long v) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = v;
        }

        public LatencyStats stats() {
            return of(values, n);
        }
    }
}
