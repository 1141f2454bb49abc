package dev.aorta.agent.capture;

/**
 * When capture windows open, like the PyTorch profiler's schedule. {@link Kind#ITERATIONS}: over the
 * application's iterations, {@code wait} idle, {@code warmup} with the device source running but nothing kept,
 * {@code active} recorded as one window, the cycle {@code repeat} times (0 = until the run ends).
 * {@link Kind#TIME}: one window {@code startAfterNs} after the agent started, {@code durationNs} long.
 * {@link Kind#ON_DEMAND}: windows only when asked for ({@code aorta capture}, JMX). {@link Kind#ALWAYS}: no
 * schedule; everything is recorded, as one window that never closes is not written.
 */
public record CaptureSchedule(Kind kind, int waitIterations, int warmup, int active, int repeat, long startAfterNs, long durationNs) {

    public enum Kind { ALWAYS, ITERATIONS, TIME, ON_DEMAND }

    /** Where an iteration falls in the schedule. */
    public enum Phase { IDLE, WARMUP, ACTIVE, DONE }

    public static final CaptureSchedule ALWAYS = new CaptureSchedule(Kind.ALWAYS, 0, 0, 0, 0, 0, 0);
    public static final CaptureSchedule ON_DEMAND = new CaptureSchedule(Kind.ON_DEMAND, 0, 0, 0, 0, 0, 0);

    public static CaptureSchedule iterations(int wait, int warmup, int active, int repeat) {
        return new CaptureSchedule(Kind.ITERATIONS, wait, warmup, active, repeat, 0, 0);
    }

    public static CaptureSchedule time(long startAfterNs, long durationNs) {
        return new CaptureSchedule(Kind.TIME, 0, 0, 0, 0, startAfterNs, durationNs);
    }

    /** The phase of iteration {@code i} (0 = the first iteration the agent sees). */
    public Phase phase(long i) {
        long cycle = (long) waitIterations + warmup + active;
        if (repeat > 0 && i >= cycle * repeat) {
            return Phase.DONE;
        }
        long at = i % cycle;
        return at < waitIterations ? Phase.IDLE : at < waitIterations + warmup ? Phase.WARMUP : Phase.ACTIVE;
    }

    /** The window iteration {@code i} belongs to when its phase is ACTIVE: its cycle, from 0. */
    public long window(long i) {
        return i / ((long) waitIterations + warmup + active);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ALWAYS -> "always";
            case ON_DEMAND -> "on demand";
            case ITERATIONS -> "wait=" + waitIterations + ",warmup=" + warmup + ",active=" + active + ",repeat=" + repeat
                    + " iterations";
            case TIME -> "start-after=" + startAfterNs / 1_000_000 + "ms,duration=" + durationNs / 1_000_000 + "ms";
        };
    }
}
