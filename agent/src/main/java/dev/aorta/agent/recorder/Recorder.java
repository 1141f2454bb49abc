package dev.aorta.agent.recorder;

import dev.aorta.agent.capture.CaptureGate;
import dev.aorta.agent.capture.CaptureWindows;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The hot path: advice woven into intercepted methods calls these static methods with primitives only.
 * One clock read here (the call's end; the advice read the start), one thread-local lookup, one row
 * written into the calling thread's {@link CallBuffer}. Nothing allocates after a thread's first call.
 * Times are {@link HostClock} ticks; {@code start} and {@code end} of a row become ns when drained.
 */
public final class Recorder {
    private static final List<CallBuffer> BUFFERS = new CopyOnWriteArrayList<>();
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final java.util.concurrent.atomic.AtomicLong RETIRED_DROPS = new java.util.concurrent.atomic.AtomicLong();
    private static volatile int capacity = 16384;

    private static final ThreadLocal<CallBuffer> LOCAL = ThreadLocal.withInitial(Recorder::register);
    /** A constant, so that the JIT inlines it into {@link CaptureGate#timeIfOpen} on the hot path. */
    private static final LongSupplier TICKS = HostClock::ticks;

    private Recorder() {
    }

    /** Sets the per-thread ring size for threads that have not recorded yet (done once at agent start). */
    public static void configure(int recordsPerThread) {
        capacity = recordsPerThread;
    }

    private static CallBuffer register() {
        OsThreadIds.noteCurrentThread();
        CallBuffer b = new CallBuffer(capacity, Thread.currentThread(), THREADS.getAndIncrement());
        BUFFERS.add(b);
        return b;
    }

    /**
     * The start of a call made while nothing is recorded: its {@code record} drops it. A call is kept or dropped
     * by where it began, so that one begun just before a window opens does not appear with no start, and the last
     * call of a window (a sync that returns after the window closed) is kept. Ticks are never this value.
     */
    public static final long OUTSIDE_WINDOW = CaptureGate.SHUT;

    /**
     * A call edge's timestamp, in {@link HostClock} ticks: the drain thread converts them to CLOCK_MONOTONIC ns.
     * Outside capture windows with nothing to record, no clock is read and the call is marked {@link #OUTSIDE_WINDOW};
     * so is a call whose clock read raced with its window closing (see {@link CaptureGate#timeIfOpen}).
     */
    public static long now() {
        return CaptureGate.timeIfOpen(TICKS);
    }

    /** The timestamp of an iteration marker: always read, as markers drive the capture schedule. */
    public static long markerNow() {
        return HostClock.ticks();
    }

    /**
     * An {@code iteration-method} call begins, which begins an iteration: the capture schedule moves here, so that
     * a window holds its iterations' calls from their first (the call's record is made at its end, by {@link #marker}).
     */
    public static long iterationMethodEntered() {
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.iterationBoundary();
        }
        return HostClock.ticks();
    }

    /**
     * An iteration marker (recorded whether or not a capture window is open): it first moves the capture
     * schedule, so that a window opening at this iteration holds the iteration's first call.
     */
    public static void marker(int id, long start, long arg, int result) {
        long end = HostClock.ticks();
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.marker(CallTable.get(id).kind());
        }
        LOCAL.get().put(id, start, end, 0, result, arg, 0, 0, 0, 0, 0, 0, 0);
    }

    public static void record(int id, long start, long stream, int result) {
        if (start == OUTSIDE_WINDOW) {
            return;
        }
        long end = HostClock.ticks();
        LOCAL.get().put(id, start, end, stream, result, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    public static void record(int id, long start, long stream, int result, long a0, long a1) {
        if (start == OUTSIDE_WINDOW) {
            return;
        }
        long end = HostClock.ticks();
        LOCAL.get().put(id, start, end, stream, result, a0, a1, 0, 0, 0, 0, 0, 0);
    }

    public static void record(int id, long start, long stream, int result, long a0, long a1, long a2, long a3) {
        if (start == OUTSIDE_WINDOW) {
            return;
        }
        long end = HostClock.ticks();
        LOCAL.get().put(id, start, end, stream, result, a0, a1, a2, a3, 0, 0, 0, 0);
    }

    public static void record(int id, long start, long stream, int result,
                              long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7) {
        if (start == OUTSIDE_WINDOW) {
            return;
        }
        long end = HostClock.ticks();
        LOCAL.get().put(id, start, end, stream, result, a0, a1, a2, a3, a4, a5, a6, a7);
    }

    /** The correlation id the calling thread's next record will carry (for samplers that pair with it). */
    public static long nextCorrelationId() {
        CallBuffer b = LOCAL.get();
        return b.correlationId(b.nextSequence());
    }

    /** Every thread's buffer, for the drain thread. */
    public static List<CallBuffer> buffers() {
        return BUFFERS;
    }

    /** Forgets a buffer whose thread has ended and which has been drained (its drops are added to the total). */
    public static void retire(CallBuffer b) {
        RETIRED_DROPS.addAndGet(b.dropped());
        BUFFERS.remove(b);
    }

    /** Drops counted by buffers already retired. */
    public static long retiredDrops() {
        return RETIRED_DROPS.get();
    }
}
