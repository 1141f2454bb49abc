package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.launchoverhead.pcie.PcieStats;
import dev.aorta.workloads.metrics.Percentiles;

/**
 * One pattern on one rank: measured, or skipped with a reason.
 *
 * @param msPerStep      elapsed host time / steps: the seed's ms/step
 * @param launchesPerStep kernel launches and GEMM calls per measured step, as counted
 * @param syncsPerStep   host waits for the device per measured step (device→host reads + the end of the step)
 */
public record PatternResult(Pattern pattern, String skipReason, int steps, double elapsedSeconds, double msPerStep,
                            double medianStepMs, double minStepMs, double maxStepMs,
                            double launchesPerStep, double syncsPerStep, PcieStats pcie) {

    public static PatternResult skipped(Pattern pattern, String reason) {
        return new PatternResult(pattern, reason, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, null);
    }

    public static PatternResult measured(Pattern pattern, FixedDurationLoop.Measurement m, PcieStats pcie) {
        double[] sorted = m.stepMs().clone();
        java.util.Arrays.sort(sorted);
        int n = m.steps();
        return new PatternResult(pattern, null, n, m.elapsedSeconds(), m.elapsedSeconds() * 1e3 / n,
                Percentiles.ofSorted(sorted, 50), sorted[0], sorted[n - 1],
                (double) m.launches() / n, (double) m.syncs() / n, pcie);
    }

    public boolean wasSkipped() {
        return skipReason != null;
    }
}
