package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.launchoverhead.pcie.PcieStats;
import dev.aorta.core.metric.Percentiles;

import java.util.Arrays;

/**
 * One pattern on one rank: measured, or skipped with a reason.
 *
 * @param msPerStep          elapsed host time / steps: the seed's ms/step
 * @param launchesPerStep    kernel launches and GEMM calls per measured step, as counted
 * @param syncsPerStep       host waits for the device per measured step (device→host reads + the end of the step)
 * @param collectivesPerStep all-reduces per measured step, as issued (0 in the single-GPU patterns)
 * @param pcie               sampled on this rank's host; for another rank's gathered result, unavailable (not sent)
 */
public record PatternResult(Pattern pattern, String skipReason, int steps, double elapsedSeconds, double msPerStep,
                            double medianStepMs, double minStepMs, double maxStepMs,
                            double launchesPerStep, double syncsPerStep, double collectivesPerStep, PcieStats pcie) {

    /** How many numbers {@link #toGathered} writes per pattern. */
    static final int GATHERED_FIELDS = 9;

    public static PatternResult skipped(Pattern pattern, String reason) {
        return new PatternResult(pattern, reason, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, null);
    }

    public static PatternResult measured(Pattern pattern, FixedDurationLoop.Measurement m, PcieStats pcie) {
        double[] sorted = m.stepMs().clone();
        Arrays.sort(sorted);
        int n = m.steps();
        return new PatternResult(pattern, null, n, m.elapsedSeconds(), m.elapsedSeconds() * 1e3 / n,
                Percentiles.ofSorted(sorted, 50), sorted[0], sorted[n - 1],
                (double) m.launches() / n, (double) m.syncs() / n, (double) m.collectives() / n, pcie);
    }

    public boolean wasSkipped() {
        return skipReason != null;
    }

    /** Writes the numbers another rank needs to print this result into {@code out} at {@code at} (NaN when skipped). */
    void toGathered(float[] out, int at) {
        double[] v = {steps, elapsedSeconds, msPerStep, medianStepMs, minStepMs, maxStepMs, launchesPerStep,
                syncsPerStep, collectivesPerStep};
        for (int i = 0; i < GATHERED_FIELDS; i++) {
            out[at + i] = wasSkipped() ? Float.NaN : (float) v[i];
        }
    }

    /**
     * Another rank's result from its gathered numbers; a pattern this rank skipped was skipped there too (the
     * skip depends only on the world size), so the reason is this rank's.
     */
    PatternResult fromGathered(float[] in, int at, int rank) {
        if (wasSkipped()) {
            return this;
        }
        return new PatternResult(pattern, null, Math.round(in[at]), in[at + 1], in[at + 2], in[at + 3], in[at + 4],
                in[at + 5], in[at + 6], in[at + 7], in[at + 8],
                PcieStats.unavailable("sampled on rank " + rank + ", printed there"));
    }
}
