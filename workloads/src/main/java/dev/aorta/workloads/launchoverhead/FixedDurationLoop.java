package dev.aorta.workloads.launchoverhead;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * Runs a step until a fixed time has passed (at least once), like the seed: slow patterns
 * get few steps, fast ones many, in the same wall time. Launches and syncs are the counters' growth over the
 * measured steps.
 */
public final class FixedDurationLoop {
    /** The measured steps: each step's host time, and the counters' growth. */
    public record Measurement(double[] stepMs, double elapsedSeconds, long launches, long syncs) {
        public int steps() {
            return stepMs.length;
        }
    }

    private FixedDurationLoop() {
    }

    /**
     * @param clock nanoseconds, monotonic ({@code System::nanoTime}; tests pass a fake one)
     */
    public static Measurement run(Runnable step, LaunchCounters counters, double seconds, LongSupplier clock) {
        long launches0 = counters.launches();
        long syncs0 = counters.syncs();
        long budgetNs = Math.round(seconds * 1e9);
        double[] stepMs = new double[64];
        int steps = 0;
        long start = clock.getAsLong();
        long now = start;
        do {
            long before = now;
            step.run();
            now = clock.getAsLong();
            if (steps == stepMs.length) {
                stepMs = Arrays.copyOf(stepMs, steps * 2);
            }
            stepMs[steps++] = (now - before) / 1e6;
        } while (now - start < budgetNs);
        return new Measurement(Arrays.copyOf(stepMs, steps), (now - start) / 1e9,
                counters.launches() - launches0, counters.syncs() - syncs0);
    }
}
