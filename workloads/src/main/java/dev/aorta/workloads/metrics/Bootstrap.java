package dev.aorta.workloads.metrics;

import dev.aorta.core.metric.Percentiles;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * Percentile bootstrap confidence interval of the relative change {@code stat(test)/stat(baseline) − 1},
 * resampling both samples independently (with replacement) each round. Seeded, so a comparison of
 * the same files always gives the same interval.
 */
public final class Bootstrap {
    public static final int RESAMPLES = 4000;
    public static final double CONFIDENCE = 0.99;
    private static final long SEED = 0x5EED_A0A7AL;

    private Bootstrap() {
    }

    public record Interval(double low, double high) {
        /** Whether no-change (0) lies outside the interval. */
        public boolean excludesZero() {
            return low > 0 || high < 0;
        }
    }

    /** A statistic of a sorted sample. */
    public interface Statistic extends ToDoubleFunction<double[]> {
    }

    public static Statistic mean() {
        return sorted -> Arrays.stream(sorted).average().orElseThrow();
    }

    public static Statistic percentile(double q) {
        return sorted -> Percentiles.ofSorted(sorted, q);
    }

    public static Interval relativeChange(double[] baseline, double[] test, Statistic statistic) {
        if (baseline.length == 0 || test.length == 0) {
            throw new IllegalArgumentException("bootstrap needs samples on both sides");
        }
        SplittableRandom random = new SplittableRandom(SEED);
        double[] changes = new double[RESAMPLES];
        double[] b = new double[baseline.length];
        double[] t = new double[test.length];
        for (int r = 0; r < RESAMPLES; r++) {
            resample(baseline, b, random);
            resample(test, t, random);
            changes[r] = statistic.applyAsDouble(t) / statistic.applyAsDouble(b) - 1;
        }
        Arrays.sort(changes);
        double tail = (1 - CONFIDENCE) / 2 * 100;
        return new Interval(Percentiles.ofSorted(changes, tail), Percentiles.ofSorted(changes, 100 - tail));
    }

    private static void resample(double[] from, double[] into, SplittableRandom random) {
        for (int i = 0; i < into.length; i++) {
            into[i] = from[random.nextInt(from.length)];
        }
        Arrays.sort(into);
    }
}
