package dev.aorta.workloads.launchoverhead;

import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Runs a step until a fixed time has passed (at least once), like the seed: slow patterns
 * get few steps, fast ones many, in the same wall time. Launches, syncs and collectives are the counters' growth
 * over the measured steps. The collective patterns run a step count agreed by all ranks instead
 * ({@link #runSteps}): a rank that stopped on its own clock would leave the others waiting in a collective.
 */
public final class FixedDurationLoop {
    /** The measured steps: each step's host time, and the counters' growth. */
    public record Measurement(double[] stepMs, double elapsedSeconds, long launches, long syncs, long collectives) {
        public int steps() {
            return stepMs.length;
        }
    }

    private FixedDurationLoop() {
    }

    /**
     * @param clock nanoseconds, monotonic ({@code System::nanoTime}; tests pass a fake one)
     */
    public static Measurement run(Runnable step, List<LaunchCounters> counters, double seconds, LongSupplier clock) {
        long budgetNs = Math.round(seconds * 1e9);
        return loop(step, counters, clock, (steps, elapsedNs) -> elapsedNs < budgetNs);
    }

    /** Exactly {@code steps} steps (at least one). */
    public static Measurement runSteps(Runnable step, List<LaunchCounters> counters, int steps, LongSupplier clock) {
        if (steps < 1) {
            throw new IllegalArgumentException("a measurement needs at least one step, got " + steps);
        }
        return loop(step, counters, clock, (done, elapsedNs) -> done < steps);
    }

    private interface Continue {
        boolean after(int steps, long elapsedNs);
    }

    private static Measurement loop(Runnable step, List<LaunchCounters> counters, LongSupplier clock, Continue more) {
        long[] before = totals(counters);
        double[] stepMs = new double[64];
        int steps = 0;
        long start = clock.getAsLong();
        long now = start;
        do {
            long stepStart = now;
            step.run();
            now = clock.getAsLong();
            if (steps == stepMs.length) {
                stepMs = Arrays.copyOf(stepMs, steps * 2);
            }
            stepMs[steps++] = (now - stepStart) / 1e6;
        } while (more.after(steps, now - start));
        long[] after = totals(counters);
        return new Measurement(Arrays.copyOf(stepMs, steps), (now - start) / 1e9,
                after[0] - before[0], after[1] - before[1], after[2] - before[2]);
    }

    /** Launches, syncs and collectives summed over the counters a step issues through. */
    private static long[] totals(List<LaunchCounters> counters) {
        long[] t = new long[3];
        for (LaunchCounters c : counters) {
            t[0] += c.launches();
            t[1] += c.syncs();
            t[2] += c.collectives();
        }
        return t;
    }
}
