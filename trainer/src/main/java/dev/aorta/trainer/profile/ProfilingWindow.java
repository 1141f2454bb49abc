package dev.aorta.trainer.profile;

import dev.aorta.trainer.config.ProfilingConfig;

/**
 * Which steps a profiled run traces: torch.profiler's {@code schedule(wait, warmup, active, repeat)}, which AORTA
 * steps once per training iteration from step 0. The steps run in cycles of wait + warmup + active: the first
 * {@code wait} of a cycle are not traced, the next {@code warmup} are traced but thrown away (torch.profiler
 * warms its tracer up there), the last {@code active} are kept, and the cycle's trace is written after its last
 * active step. With {@code repeat} > 0 only that many cycles run, and the steps after them are not traced; with 0
 * the cycles repeat until training ends.
 */
public record ProfilingWindow(int waitSteps, int warmup, int active, int repeat) {
    /** What happens to a step's device records. */
    public enum Phase {
        /** Not traced. */
        NONE,
        /** Traced by torch.profiler and discarded; here the records are simply not kept. */
        WARMUP,
        /** Kept for the cycle's trace. */
        ACTIVE
    }

    public ProfilingWindow {
        if (waitSteps < 0 || warmup < 0 || active < 1 || repeat < 0) {
            throw new IllegalArgumentException("profiling window (wait " + waitSteps + ", warmup " + warmup
                    + ", active " + active + ", repeat " + repeat + "): expected wait, warmup, repeat ≥ 0 and active ≥ 1");
        }
    }

    public static ProfilingWindow of(ProfilingConfig cfg) {
        return new ProfilingWindow(cfg.waitSteps(), cfg.warmup(), cfg.active(), cfg.repeat());
    }

    private int cycleLength() {
        return waitSteps + warmup + active;
    }

    public Phase phaseOf(long step) {
        if (step < 0 || repeat > 0 && step / cycleLength() >= repeat) {
            return Phase.NONE;
        }
        long inCycle = step % cycleLength();
        if (inCycle < waitSteps) {
            return Phase.NONE;
        }
        return inCycle < waitSteps + warmup ? Phase.WARMUP : Phase.ACTIVE;
    }

    /** Whether {@code step} is the last active step of its cycle, after which the cycle's trace is written. */
    public boolean endsCycle(long step) {
        return phaseOf(step) == Phase.ACTIVE && step % cycleLength() == cycleLength() - 1;
    }
}
