package dev.aorta.agent.recorder;

import java.util.SplittableRandom;

/**
 * A host for clock tests, deterministic from its seed: CLOCK_MONOTONIC is the truth ({@link #nanoTime} returns it),
 * the TSC runs at 2.9 GHz with a rate drifting by 30 ppm a second, and every read takes time: 20-40 ns for nanoTime,
 * 10-20 ns for the TSC, and a read is preempted for 1-5 µs with the given probability (a loaded 2-core VM).
 */
public final class FakeTsc {
    private static final long EPOCH_NS = 1_000_000_000L;

    private final SplittableRandom random;
    private final double preemption;
    private long trueNs = EPOCH_NS;

    public FakeTsc(long seed, double preemption) {
        this.random = new SplittableRandom(seed);
        this.preemption = preemption;
    }

    public long nanoTime() {
        long now = trueNs;
        trueNs += cost(20, 20);
        return now;
    }

    public long ticks() {
        long now = ticksAt(trueNs);
        trueNs += cost(10, 10);
        return now;
    }

    /** The true CLOCK_MONOTONIC time now (what a reading taken now should convert to). */
    public long now() {
        return trueNs;
    }

    /** Lets time pass without reading a clock. */
    public void run(long ns) {
        trueNs += ns;
    }

    private static long ticksAt(long ns) {
        double s = (ns - EPOCH_NS) / 1e9;
        return 7_000_000_000L + Math.round((ns - EPOCH_NS) * 2.9 * (1 + 30e-6 * s));
    }

    private long cost(int base, int spread) {
        long c = base + random.nextInt(spread);
        if (random.nextDouble() < preemption) {
            c += 1_000 + random.nextInt(4_000);
        }
        return c;
    }
}
