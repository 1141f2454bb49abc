package dev.aorta.workloads.metrics;

import java.util.Arrays;

/**
 * Summary of a sample: mean, population standard deviation (numpy's default, as AORTA reports it),
 * min, max and linear-interpolation percentiles p50/p95/p99.
 */
public record SampleStats(int count, double mean, double std, double min, double max,
                          double p50, double p95, double p99) {

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
}
