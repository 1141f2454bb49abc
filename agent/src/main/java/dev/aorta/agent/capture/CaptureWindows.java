package dev.aorta.agent.capture;

import dev.aorta.agent.spi.CallKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * Opens and closes capture windows, following the {@link CaptureSchedule} (iteration boundaries from the marker
 * advice, time from the drain thread's {@link #tick}) and requests ({@code aorta capture}, JMX). It sets
 * the {@link CaptureGate} for the hot path and tells its {@link Listener} when device activity should run
 * and when a window opened or closed. Windows are numbered from 0 in the order they open; the drain thread asks
 * {@link #windowAt} which window a record's time fell in. A window's edges are read on the hot path's clock (ticks):
 * its start before the gate opens and its end after it shuts, so that every call the gate kept began within its
 * window (see {@link CaptureGate} for the calls racing with the gate). Edges become ns as records do, through
 * {@code HostClock}: with nanoTime ticks at once, with TSC ticks when the drain thread {@link #settle}s them after
 * an anchor, converted by the same map as the records, which keeps the order of readings: a call kept in a window
 * converts within its edges exactly, whatever the map's error. Schedules, deadlines and logs use nanoTime.
 */
public final class CaptureWindows {
    /** Closed windows remembered for {@link #windowAt}: records are drained within milliseconds of their window. */
    static final int HISTORY = 64;

    /** Told of every change; called under this object's lock, so it must not call back. */
    public interface Listener {
        void windowOpened(long index, long startNs, String reason);

        void windowClosed(long index, long startNs, long endNs, String reason);

        /**
         * The closed window's edges in the records' ns (for the capture marker): with nanoTime ticks right after
         * {@link #windowClosed}, which then carries the same times; with TSC ticks at the drain cycle after (the
         * times {@link #windowOpened} and {@link #windowClosed} carry are then nanoTime's, for logs).
         */
        default void windowSettled(long index, long startNs, long endNs) {
        }

        /** Device activity (CUPTI) runs only while {@code on}: in windows and their warm-up. */
        void deviceActivity(boolean on);
    }

    /** An edge not converted yet (its ticks are newer than the conversion's newest anchor). */
    private static final long UNSETTLED = Long.MIN_VALUE;

    /**
     * One window's edges in ticks ({@code endTicks} {@link Long#MAX_VALUE} while open) and ns ({@link #UNSETTLED}
     * until converted; converted once, as the conversion of old readings needs anchors no longer kept).
     */
    private record Span(long index, long startTicks, long endTicks, long startNs, long endNs) {
        boolean closed() {
            return endTicks != Long.MAX_VALUE;
        }
    }

    /** The agent's windows, for the marker path of {@code Recorder}; null until the agent starts. */
    public static volatile CaptureWindows current;

    private final CaptureSchedule schedule;
    private final BetweenWindows between;
    private final Listener listener;
    private final long agentStartNs;
    private final LongSupplier clock;
    private final LongSupplier edgeClock;
    /** The edge clock is {@link #clock} (nanoTime ticks): edges are ns as read. */
    private final boolean edgesInNs;
    /** {@code between-windows=off} with windows: the recording advice is woven only while something is recorded. */
    private final boolean unweaves;
    private long iterations;
    private long nextIndex;
    private boolean timedDone;
    /** The device source runs when the agent starts; a schedule pauses it until its first window. */
    private boolean deviceOn = true;
    private boolean stopped;
    // the open window, if any
    private long openIndex = -1;
    private long openStartNs;
    private long openStartTicks;
    private long openDeadlineNs = Long.MAX_VALUE;
    private String openReason;
    private volatile Span[] spans = new Span[0];
    /** With {@code between-windows=off}: woven only while something is recorded; null while it stays woven. */
    private RecordingAdvice advice;
    /** The advice {@link #stop} stopped following, for {@link #takeAdviceOut} at detach. */
    private RecordingAdvice stoppedAdvice;
    /** Windows closer together than this keep the advice woven between them ({@link #followAdvice}). */
    private long shortGapNs;
    private static final long NOT_IDLE = Long.MIN_VALUE;
    /** Since when no window nor warm-up has needed the advice after one did; {@link #NOT_IDLE} while one does. */
    private long idleSinceNs = NOT_IDLE;
    private boolean neededOnce;
    /** The last stretch without a window was shorter than {@link #shortGapNs}. */
    private boolean gapsShort;

    /** Edges on the hot path's clock ({@code HostClock.ticks()}, whose conversion {@link #settle} is given). */
    public CaptureWindows(CaptureSchedule schedule, BetweenWindows between, Listener listener, long agentStartNs,
                          LongSupplier edgeClock, boolean edgesInNs) {
        this(schedule, between, listener, agentStartNs, System::nanoTime, edgesInNs ? System::nanoTime : edgeClock,
                edgesInNs);
    }

    /** With the clock that times the windows' edges and requests (tests drive their own). */
    CaptureWindows(CaptureSchedule schedule, BetweenWindows between, Listener listener, long agentStartNs,
                   LongSupplier clock) {
        this(schedule, between, listener, agentStartNs, clock, clock, true);
    }

    /** With a schedule clock (ns) and an edge clock (ticks) of the tests' own. */
    CaptureWindows(CaptureSchedule schedule, BetweenWindows between, Listener listener, long agentStartNs,
                   LongSupplier clock, LongSupplier edgeClock, boolean edgesInNs) {
        this.schedule = schedule;
        this.clock = clock;
        this.edgeClock = edgeClock;
        this.edgesInNs = edgesInNs;
        this.between = between;
        this.listener = listener;
        this.agentStartNs = agentStartNs;
        boolean always = schedule.kind() == CaptureSchedule.Kind.ALWAYS;
        CaptureGate.set(always || between == BetweenWindows.API);
        this.unweaves = between == BetweenWindows.OFF && !always;
        setDevice(always);
    }

    public CaptureSchedule schedule() {
        return schedule;
    }

    /** Whether the recording advice should be taken out between windows ({@code between-windows=off}, windows). */
    public boolean unweavesBetweenWindows() {
        return unweaves;
    }

    /**
     * Hands over the recording advice, to be woven only while a window or its warm-up is open (before its gate opens
     * and its device activity starts) and taken out once neither is, unless windows come less than {@code shortGapNs}
     * apart: for {@code between-windows=off}. Weaves or takes it out now, as the schedule stands.
     */
    public synchronized void weaveOnlyInWindows(RecordingAdvice advice, long shortGapNs) {
        if (!unweaves) {
            throw new IllegalStateException("the recording advice stays woven with between-windows=" + between
                    + " and schedule " + schedule);
        }
        this.advice = advice;
        this.shortGapNs = shortGapNs;
        followAdvice();
    }

    /**
     * An iteration begins (a step marker, or an {@code iteration-method} call ended): with an iteration schedule,
     * the window opens at the first active iteration and closes at the first one after.
     */
    public synchronized void iterationBoundary() {
        if (schedule.kind() != CaptureSchedule.Kind.ITERATIONS || stopped) {
            return;
        }
        long i = iterations++;
        CaptureSchedule.Phase phase = schedule.phase(i);
        if (phase == CaptureSchedule.Phase.ACTIVE) {
            if (openIndex < 0) {
                long first = i - (i % ((long) schedule.waitIterations() + schedule.warmup() + schedule.active())) + schedule.waitIterations()
                        + schedule.warmup();
                openWindow(0, String.format(Locale.ROOT, "iterations %d..%d of the schedule",
                        first, first + schedule.active() - 1));
            }
            return;
        }
        closeWindow();
        setDevice(phase == CaptureSchedule.Phase.WARMUP);
    }

    /**
     * An iteration marker of the given kind. An {@code iteration-method} call moved the schedule
     * when it began ({@link #iterationBoundary}); its record, made at its end, does not move it again.
     */
    public void marker(CallKind kind) {
        switch (kind) {
            case ITERATION_BEGIN, ITERATION_STEP -> iterationBoundary();
            case ITERATION_FINISH -> iterationsFinished();
            default -> {
                // stepEnd: the next stepBegin is the boundary; ITERATION_CALL: see above
            }
        }
    }

    /** The application's loop ended ({@code Aorta.finish}): an open iteration window ends here. */
    public synchronized void iterationsFinished() {
        if (schedule.kind() == CaptureSchedule.Kind.ITERATIONS) {
            closeWindow();
            setDevice(false);
        }
    }

    /**
     * From the drain thread every cycle: opens and closes timed windows, so their edges are late by up to a drain
     * interval (the edges written are when the gate actually opened and shut).
     */
    public synchronized void tick() {
        if (stopped) {
            return;
        }
        long nowNs = clock.getAsLong();
        if (openIndex >= 0 && nowNs >= openDeadlineNs) {
            closeWindow();
            setDevice(false);
            return;
        }
        if (schedule.kind() == CaptureSchedule.Kind.TIME && !timedDone && openIndex < 0
                && nowNs >= agentStartNs + schedule.startAfterNs()) {
            timedDone = true;
            openWindow(schedule.durationNs(), String.format(Locale.ROOT,
                    "start-after=%s,duration=%s", Durations.format(schedule.startAfterNs()),
                    Durations.format(schedule.durationNs())));
        }
    }

    /**
     * Opens a window on request, for {@code durationNs} (or until {@link #close}, when {@code <= 0}); refused
     * while another is open, naming that one.
     *
     * @return a line describing the window opened
     */
    public synchronized String open(String requestedBy, long durationNs) {
        if (stopped) {
            throw new IllegalStateException("the agent is detached; nothing is recorded any more in this JVM");
        }
        long nowNs = clock.getAsLong();
        if (openIndex >= 0) {
            throw new IllegalStateException("capture window " + openIndex + " is already open (" + describeOpen(nowNs)
                    + "); wait for it to close or close it first");
        }
        String reason = requestedBy + (durationNs > 0 ? " for " + Durations.format(durationNs) : " until closed");
        openWindow(durationNs, reason);
        return "capture window " + openIndex + " opened (" + reason + ")";
    }

    /** Closes the open window on request; says which, or that none was open. */
    public synchronized String close() {
        if (openIndex < 0) {
            return "no capture window is open";
        }
        long index = openIndex;
        closeWindow();
        setDevice(schedule.kind() == CaptureSchedule.Kind.ALWAYS);
        return "capture window " + index + " closed";
    }

    /** The open window in words, or null when none is. */
    public synchronized String activeWindow() {
        return openIndex < 0 ? null : "capture window " + openIndex + ": " + describeOpen(clock.getAsLong());
    }

    /**
     * Closes an open window and stops all recording: at detach and at exit. The advice stays as it is (woven, it
     * returns at the gate): taking it out would cost the exit a retransformation.
     */
    public synchronized void stop() {
        stoppedAdvice = advice;
        advice = null;
        closeWindow();
        stopped = true;
        CaptureGate.shut();
        setDevice(false);
    }

    /**
     * After {@link #stop}, at detach: takes the recording advice out for good where {@code between-windows=off} took
     * it out between windows anyway. Whether it did (else the woven calls stay, at one flag read each).
     */
    public synchronized boolean takeAdviceOut() {
        if (stoppedAdvice == null) {
            return false;
        }
        stoppedAdvice.setWoven(false);
        return true;
    }

    /**
     * The window a record at {@code ns} was made in, or -1 (between windows, or no schedule). Any thread; used
     * by the drain thread on every API record, so it reads a published array instead of taking the lock.
     */
    public long windowAt(long ns) {
        Span[] s = spans;
        for (int i = s.length - 1; i >= 0; i--) {
            // an unsettled start is newer than every record converted yet; an unsettled end, than every record too
            if (s[i].startNs() != UNSETTLED && ns >= s[i].startNs()
                    && (s[i].endNs() == UNSETTLED || ns <= s[i].endNs())) {
                return s[i].index();
            }
        }
        return -1;
    }

    /**
     * Converts the edges read up to {@code settledThrough} (ticks) with {@code toNs}, the map the records are converted
     * with: called by the drain thread after each anchor, before it converts the records that anchor settled.
     */
    public synchronized void settle(LongUnaryOperator toNs, long settledThrough) {
        Span[] s = spans;
        Span[] next = null;
        for (int i = 0; i < s.length; i++) {
            Span span = s[i];
            long start = span.startNs() == UNSETTLED && span.startTicks() <= settledThrough
                    ? toNs.applyAsLong(span.startTicks()) : span.startNs();
            long end = span.endNs() == UNSETTLED && span.closed() && span.endTicks() <= settledThrough
                    ? toNs.applyAsLong(span.endTicks()) : span.endNs();
            if (start != span.startNs() || end != span.endNs()) {
                if (next == null) {
                    next = s.clone();
                }
                next[i] = new Span(span.index(), span.startTicks(), span.endTicks(), start, end);
                if (end != UNSETTLED) {
                    listener.windowSettled(span.index(), start, end);
                }
            }
        }
        if (next != null) {
            spans = next;
        }
    }

    private String describeOpen(long nowNs) {
        return openReason + ", open for " + Durations.format(Math.max(0, nowNs - openStartNs))
                + (openDeadlineNs == Long.MAX_VALUE ? "" : ", closes in " + Durations.format(Math.max(0, openDeadlineNs - nowNs)));
    }

    /**
     * The start is read just before the gate opens: every call the gate keeps reads its clock after it. A window of a
     * duration ({@code durationNs > 0}; else it lasts until closed) lasts it from there, after the advice was woven in
     * and the device source started, which may take a few hundred ms and must not shorten what is recorded.
     */
    private void openWindow(long durationNs, String reason) {
        setDevice(true);
        openIndex = nextIndex++;
        openStartTicks = edgeClock.getAsLong();
        openStartNs = edgesInNs ? openStartTicks : clock.getAsLong();
        openDeadlineNs = durationNs > 0 ? openStartNs + durationNs : Long.MAX_VALUE;
        openReason = reason;
        publish(new Span(openIndex, openStartTicks, Long.MAX_VALUE, UNSETTLED, UNSETTLED));
        CaptureGate.open();
        listener.windowOpened(openIndex, openStartNs, reason);
    }

    /**
     * The end is read just after the gate shut: a call that read its clock later saw the gate shut on its second
     * look and dropped itself (the volatile write of the gate comes before this read, the call's clock read before
     * its second look at the gate).
     */
    private void closeWindow() {
        if (openIndex < 0) {
            return;
        }
        CaptureGate.set(schedule.kind() == CaptureSchedule.Kind.ALWAYS || between == BetweenWindows.API);
        long endTicks = edgeClock.getAsLong();
        listener.windowClosed(openIndex, openStartNs, edgesInNs ? endTicks : clock.getAsLong(), openReason);
        Span open = spanOf(openIndex);
        publish(new Span(openIndex, openStartTicks, endTicks, open == null ? UNSETTLED : open.startNs(), UNSETTLED));
        openIndex = -1;
        openDeadlineNs = Long.MAX_VALUE;
        openReason = null;
    }

    private Span spanOf(long index) {
        for (Span s : spans) {
            if (s.index() == index) {
                return s;
            }
        }
        return null;
    }

    /**
     * Replaces the window's span (an open one by its closed self) and keeps the last {@link #HISTORY}; edges on
     * nanoTime ticks are ns as read, so they settle at once.
     */
    private void publish(Span span) {
        List<Span> next = new ArrayList<>(List.of(spans));
        next.removeIf(s -> s.index() == span.index());
        next.add(span);
        while (next.size() > HISTORY) {
            next.remove(0);
        }
        spans = next.toArray(new Span[0]);
        if (edgesInNs) {
            settle(ns -> ns, Long.MAX_VALUE);
        }
    }

    /**
     * Turns device activity on or off: where the advice follows the windows, as a window never opens without the
     * device on. The advice is woven before the device starts and taken out after it stopped.
     */
    private void setDevice(boolean on) {
        if (on == deviceOn) {
            return;
        }
        deviceOn = on;
        if (on) {
            followAdvice();
            listener.deviceActivity(true);
        } else {
            listener.deviceActivity(false);
            followAdvice();
        }
    }

    /**
     * The advice is woven while a window or its warm-up is open: before a window's gate opens (its opening turns the
     * device on first), and taken out after it shut and the device stopped, unless the last stretch between windows
     * was shorter than {@link #shortGapNs}: windows that come that often would pay a weave and an unweave and the
     * JIT's recompilation of the calling code every time (on an H100, 1250 windows 8 iterations apart ran 72 s
     * instead of 8-10 s), so the advice stays, gated, until a stretch of {@link #shortGapNs} or more has passed. The
     * stretch before the first window does not count.
     */
    private void followAdvice() {
        if (advice == null) {
            return;
        }
        boolean needed = openIndex >= 0 || deviceOn;
        long nowNs = clock.getAsLong();
        if (needed) {
            if (idleSinceNs != NOT_IDLE) {
                gapsShort = nowNs - idleSinceNs < shortGapNs;
                idleSinceNs = NOT_IDLE;
            }
            neededOnce = true;
        } else if (idleSinceNs == NOT_IDLE && neededOnce) {
            idleSinceNs = nowNs;
        }
        advice.setWoven(needed || gapsShort);
    }
}
