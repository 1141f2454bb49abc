package dev.aorta.core.metric;

/**
 * A stream's busy time estimated from sampled kernel durations (docs/metrics.md#sampled-stream-busy-time), for
 * device-timing modes that measure only every Nth launch. Of the N kernels a stream launched, n were measured,
 * with durations d_1..d_n (mean d̄, sample standard deviation s); kernels of one stream never overlap, so its busy
 * time is the sum of all N durations, estimated as
 * <pre>
 * busy_ns       = N · d̄
 * standard_err  = N · s / √n · √(1 − n/N)          (finite-population correction: with n = N it is exact)
 * interval_95   = busy_ns ± t(0.975, n − 1) · standard_err
 * </pre>
 * treating the sample as a simple random sample of the stream's launches (every Nth launch is a systematic
 * sample; it is as good as random unless the kernel durations repeat with a period sharing a factor with N).
 * t is Student's quantile (a table for n − 1 ≤ 30, above that the Cornish–Fisher expansion
 * z + (z³ + z)/(4·df) + (5z⁵ + 16z³ + 3z)/(96·df²), within 0.001 of the exact value). With n = 1 there is no spread, so no interval ({@link #hasInterval()} false);
 * with n = 0 nothing can be said and {@link #of} refuses.
 */
public record SampledBusyTime(long launches, int sampled, double busyNs, double lowNs, double highNs) {
    private static final double Z_975 = 1.959963984540054;
    /** t(0.975, df) for df = 1..30. */
    private static final double[] T_975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
            2.056, 2.052, 2.048, 2.045, 2.042};

    /**
     * @param launches all kernel launches on the stream in the span (N)
     * @param durationsNs the sampled kernels' durations (n of them, 1 ≤ n ≤ N)
     */
    public static SampledBusyTime of(long launches, double[] durationsNs) {
        int n = durationsNs.length;
        double sum = 0;
        for (double d : durationsNs) {
            sum += d;
        }
        double mean = n == 0 ? 0 : sum / n;
        double squares = 0;
        for (double d : durationsNs) {
            squares += (d - mean) * (d - mean);
        }
        return of(launches, n, mean, n < 2 ? 0 : Math.sqrt(squares / (n - 1)));
    }

    /**
     * From the sample's moments, for callers that keep running sums rather than every duration.
     *
     * @param sdNs the sample standard deviation s (divisor n − 1); ignored when n = 1
     */
    public static SampledBusyTime of(long launches, int n, double meanNs, double sdNs) {
        if (n == 0 || launches < n) {
            throw new IllegalArgumentException("a busy-time estimate needs 1 to " + launches + " sampled durations of "
                    + launches + " launches, got " + n);
        }
        double busy = launches * meanNs;
        if (n == 1) {
            return new SampledBusyTime(launches, 1, busy, Double.NaN, Double.NaN);
        }
        double standardError = launches * sdNs / Math.sqrt(n) * Math.sqrt(1 - (double) n / launches);
        double half = t975(n - 1) * standardError;
        return new SampledBusyTime(launches, n, busy, Math.max(0, busy - half), busy + half);
    }

    /** False with a single sample: its spread, and so the interval, is unknown. */
    public boolean hasInterval() {
        return !Double.isNaN(lowNs);
    }

    /** Student's t quantile at 0.975 for {@code df} degrees of freedom. */
    static double t975(int df) {
        if (df < 1) {
            throw new IllegalArgumentException("degrees of freedom must be >= 1, got " + df);
        }
        if (df <= T_975.length) {
            return T_975[df - 1];
        }
        double z = Z_975;
        double z3 = z * z * z;
        return z + (z3 + z) / (4.0 * df) + (5 * z3 * z * z + 16 * z3 + 3 * z) / (96.0 * df * df);
    }
}
