package dev.aorta.agent.capture;

import dev.aorta.agent.spi.CallKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Opens and closes capture windows, following the {@link CaptureSchedule} (iteration boundaries from the marker
 * advice, time from the drain thread's {@link #tick}) and requests ({@code aorta capture}, JMX). It sets
 * the {@link CaptureGate} for the hot path and tells its {@link Listener} when device activity should run
 * and when a window opened or closed. Windows are numbered from 0 in the order they open; the drain thread asks
 * {@link #windowAt} which window a record's time fell in. Times are CLOCK_MONOTONIC ns, the records' clock, read
 * here: a window's start is read before the gate opens and its end after it shuts, so that every call the gate kept
 * began within its window as written (see {@link CaptureGate} for the calls racing with the gate).
 */
public final class CaptureWindows {
    /** Closed windows remembered for {@link #windowAt}: records are drained within milliseconds of their window. */
    static final int HISTORY = 64;

    /** Told of every change; called under this object's lock, so it must not call back. */
    public interface Listener {
        void windowOpened(long index, long startNs, String reason);

        void windowClosed(long index, long startNs, long endNs, String reason);

        /** Device activity (CUPTI) runs only while {@code on}: in windows and their warm-up. */
        void deviceActivity(boolean on);
    }

    /** One window's span; {@code endNs} is {@link Long#MAX_VALUE} while it is open. */
    private record Span(long index, long startNs, long endNs) {
    }

    /** The agent's windows, for the marker path of {@code Recorder}; null until the agent starts. */
    public static volatile CaptureWindows current;

    private final CaptureSchedule schedule;
    private final BetweenWindows between;
    private final Listener listener;
    private final long agentStartNs;
    private final LongSupplier clock;
    private long iterations;
    private long nextIndex;
    private boolean timedDone;
    /** The device source runs when the agent starts; a schedule pauses it until its first window. */
    private boolean deviceOn = true;
    private boolean stopped;
    // the open window, if any
    private long openIndex = -1;
    private long openStartNs;
    private long openDeadlineNs = Long.MAX_VALUE;
    private String openReason;
    private volatile Span[] spans = new Span[0];

    public CaptureWindows(CaptureSchedule schedule, BetweenWindows between, Listener listener, long agentStartNs) {
        this(schedule, between, listener, agentStartNs, System::nanoTime);
    }

    /** With the clock that times the windows' edges and requests (tests drive their own). */
    CaptureWindows(CaptureSchedule schedule, BetweenWindows between, Listener listener, long agentStartNs,
                   LongSupplier clock) {
        this.schedule = schedule;
        this.clock = clock;
        this.between = between;
        this.listener = listener;
        this.agentStartNs = agentStartNs;
        boolean always = schedule.kind() == CaptureSchedule.Kind.ALWAYS;
        CaptureGate.set(always || between == BetweenWindows.API);
        setDevice(always);
    }

    public CaptureSchedule schedule() {
        return schedule;
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
                openWindow(Long.MAX_VALUE, String.format(Locale.ROOT, "iterations %d..%d of the schedule",
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
            long start = agentStartNs + schedule.startAfterNs();
            openWindow(start + schedule.durationNs(), String.format(Locale.ROOT,
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
        openWindow(durationNs > 0 ? nowNs + durationNs : Long.MAX_VALUE, reason);
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

    /** Closes an open window and stops all recording: at detach and at exit. */
    public synchronized void stop() {
        closeWindow();
        stopped = true;
        CaptureGate.shut();
        setDevice(false);
    }

    /**
     * The window a record at {@code ns} was made in, or -1 (between windows, or no schedule). Any thread; used
     * by the drain thread on every API record, so it reads a published array instead of taking the lock.
     */
    public long windowAt(long ns) {
        Span[] s = spans;
        for (int i = s.length - 1; i >= 0; i--) {
            if (ns >= s[i].startNs() && ns <= s[i].endNs()) {
                return s[i].index();
            }
        }
        return -1;
    }

    private String describeOpen(long nowNs) {
        return openReason + ", open for " + Durations.format(Math.max(0, nowNs - openStartNs))
                + (openDeadlineNs == Long.MAX_VALUE ? "" : ", closes in " + Durations.format(Math.max(0, openDeadlineNs - nowNs)));
    }

    /** The start is read just before the gate opens: every call the gate keeps reads its clock after it. */
    private void openWindow(long deadlineNs, String reason) {
        setDevice(true);
        openIndex = nextIndex++;
        openStartNs = clock.getAsLong();
        openDeadlineNs = deadlineNs;
        openReason = reason;
        publish(new Span(openIndex, openStartNs, Long.MAX_VALUE));
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
        long end = clock.getAsLong();
        publish(new Span(openIndex, openStartNs, end));
        listener.windowClosed(openIndex, openStartNs, end, openReason);
        openIndex = -1;
        openDeadlineNs = Long.MAX_VALUE;
        openReason = null;
    }

    /** Replaces the window's span (an open one by its closed self) and keeps the last {@link #HISTORY}. */
    private void publish(Span span) {
        List<Span> next = new ArrayList<>(List.of(spans));
        next.removeIf(s -> s.index() == span.index());
        next.add(span);
        while (next.size() > HISTORY) {
            next.remove(0);
        }
        spans = next.toArray(new Span[0]);
    }

    private void setDevice(boolean on) {
        if (on != deviceOn) {
            deviceOn = on;
            listener.deviceActivity(on);
        }
    }
}
