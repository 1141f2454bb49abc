package dev.aorta.analyzer.report;

import java.util.Arrays;

/** Per-label aggregate of one metric over iterations: count, mean, median, standard deviation (n−1), min, max. */
public record Aggregate(int count, double mean, double median, double std, double min, double max) {

    public static Aggregate of(double[] v) {
        if (v.length == 0) {
            return new Aggregate(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        double[] s = v.clone();
        Arrays.sort(s);
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return new Aggregate(v.length, mean(v), median, Math.sqrt(variance(v)), s[0], s[s.length - 1]);
    }

    static double mean(double[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).sum() / v.length;
    }

    /** Sample variance (n−1); 0 for fewer than two values. */
    static double variance(double[] v) {
        if (v.length < 2) {
            return 0;
        }
        double m = mean(v);
        double ss = 0;
        for (double x : v) {
            ss += (x - m) * (x - m);
        }
        return ss / (v.length - 1);
    }
}
