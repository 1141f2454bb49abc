package dev.aorta.core.metric;

import java.util.Arrays;

/**
 * Summary of a sample, the one used for every latency and duration aorta reports: count, mean, population standard
 * deviation (numpy's default, as AORTA reports it), min, max and the percentiles p50/p95/p99 of {@link Percentiles}
 * (linear interpolation between closest ranks). Units are the caller's. {@link #NONE} (count 0, all else 0) stands
 * for no samples where a report shows the count rather than leaving the summary out.
 */
public record SampleStats(int count, double mean, double std, double min, double max,
                          double p50, double p95, double p99) {
    public static final SampleStats NONE = new SampleStats(0, 0, 0, 0, 0, 0, 0, 0);

    public static SampleStats of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("statistics of no values");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (double v : sorted) {
            sum += v;
        }
        double mean = sum / sorted.length;
        double squares = 0;
        for (double v : sorted) {
            squares += (v - mean) * (v - mean);
        }
        return new SampleStats(sorted.length, mean, Math.sqrt(squares / sorted.length), sorted[0],
                sorted[sorted.length - 1], Percentiles.ofSorted(sorted, 50), Percentiles.ofSorted(sorted, 95),
                Percentiles.ofSorted(sorted, 99));
    }

    /** Same statistics with every value multiplied by {@code factor} (unit conversion). */
    public SampleStats scaled(double factor) {
        return new SampleStats(count, mean * factor, std * factor, min * factor, max * factor,
                p50 * factor, p95 * factor, p99 * factor);
    }

    /** A growable array of samples, so that millions of them are never boxed. */
    public static final class Samples {
        private double[] values = new double[64];
        private int n;

        public void add(double v) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = v;
        }

        public int count() {
            return n;
        }

        /** The summary, or {@link #NONE} without samples. */
        public SampleStats stats() {
            return n == 0 ? NONE : of(Arrays.copyOf(values, n));
        }
    }
}
