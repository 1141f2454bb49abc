package dev.aorta.agent.recorder;

import java.util.function.LongSupplier;

/**
 * Maps clock ticks (the TSC) onto CLOCK_MONOTONIC ns so that a reading converts to the same ns whenever it is
 * converted. Anchors are (ticks, ns) pairs read together; a reading converts by linear interpolation between the two
 * anchors that bracket it, so its ns is fixed once the anchor after it exists and never changes after: a later anchor
 * starts a new segment instead of re-fitting the old one. Readings newer than the newest anchor are not settled
 * ({@link #settledThrough}): callers hold them until the next anchor instead of extrapolating, because an
 * extrapolated value would differ from the one the same reading gets once bracketed (by the read error of the
 * anchors over the extrapolated span, µs under load).
 *
 * <p>An anchor is the narrowest of up to {@link #TRIES} (nanoTime, ticks, nanoTime) reads, taken as soon as one is
 * within twice the narrowest pair this timeline has seen: a read preempted under load is retried instead of kept.
 * Its ns is the bracket's midpoint and its uncertainty half the bracket: a converted time lies within the larger
 * uncertainty of its two anchors of the nanoTime the reading was taken at (plus the TSC's departure from a straight
 * line over one segment, which NTP's slewing keeps below 500 ppm of a segment's rate change, far below that).
 * The map is non-decreasing (anchors are taken one after the other, so both their ticks and midpoints increase),
 * so readings in order convert in order: a reading between two window edges converts between their ns.
 *
 * <p>One thread only (the drain thread, under the drainer's lock): no conversion allocates or locks.
 */
public final class TickTimeline {
    /** Anchors kept: readings are converted within a few drain cycles of being taken, far fewer anchors back. */
    static final int HISTORY = 1024;
    /** An anchor is not taken sooner than this after the last: closer ones would add segments, not accuracy. */
    static final long MIN_SPAN_NS = 1_000_000L;
    /** Reads tried per anchor at most. */
    static final int TRIES = 16;

    private final LongSupplier ticks;
    private final LongSupplier nanoTime;
    private final long[] anchorTicks = new long[HISTORY];
    private final long[] anchorNs = new long[HISTORY];
    /** Anchors taken so far; the newest is {@code count - 1}, kept at {@code (count - 1) % HISTORY}. */
    private long count;
    /** The left anchor of the segment the last conversion used: readings come in runs of nearby times. */
    private long lastSegment;
    private long narrowestWidthNs = Long.MAX_VALUE;
    private long widestWidthNs;

    /**
     * Takes the first two anchors, {@link #MIN_SPAN_NS} apart (a spin of 1 ms), so that every reading has a segment.
     * Ends because the ticks advance: HostClock takes the TSC only after measuring its rate over 1 ms.
     */
    public TickTimeline(LongSupplier ticks, LongSupplier nanoTime) {
        this.ticks = ticks;
        this.nanoTime = nanoTime;
        take();
        while (count < 2) {
            Thread.onSpinWait();
            anchor(false);
        }
    }

    /**
     * Takes an anchor, unless the newest is younger than {@link #MIN_SPAN_NS} and {@code force} is false (at the
     * last drain everything recorded must settle).
     */
    public void anchor(boolean force) {
        if (force || nanoTime.getAsLong() - anchorNs[slot(count - 1)] >= MIN_SPAN_NS) {
            take();
        }
    }

    /** The newest reading that converts for good: the newest anchor's ticks. */
    public long settledThrough() {
        return anchorTicks[slot(count - 1)];
    }

    /**
     * CLOCK_MONOTONIC ns of a reading. Fixed for readings up to {@link #settledThrough}; a newer one is extrapolated
     * from the last segment and may convert differently once bracketed, so callers do not convert those. A reading
     * older than every anchor kept (not converted for {@link #HISTORY} anchors) extrapolates the oldest segment.
     */
    public long toNanos(long reading) {
        long left = lastSegment;
        if (left < oldest() || left + 1 >= count || reading < anchorTicks[slot(left)] || reading > anchorTicks[slot(left + 1)]) {
            left = segmentOf(reading);
            lastSegment = left;
        }
        int a = slot(left);
        int b = slot(left + 1);
        long dt = anchorTicks[b] - anchorTicks[a];
        long dn = anchorNs[b] - anchorNs[a];
        return anchorNs[a] + Math.round((double) (reading - anchorTicks[a]) * dn / dt);
    }

    /** Half the widest anchor bracket so far: no converted time is further than this from its nanoTime. */
    public long uncertaintyNs() {
        return (widestWidthNs + 1) / 2;
    }

    /** Half the narrowest anchor bracket so far (the machine's floor). */
    public long bestUncertaintyNs() {
        return (narrowestWidthNs + 1) / 2;
    }

    public long anchors() {
        return count;
    }

    /** The left anchor of the segment holding the reading (the first or last segment outside the anchors kept). */
    private long segmentOf(long reading) {
        long lo = oldest();
        long hi = count - 2;
        if (reading <= anchorTicks[slot(lo)]) {
            return lo;
        }
        if (reading >= anchorTicks[slot(hi)]) {
            return hi;
        }
        while (lo < hi) {  // invariant: anchorTicks[lo] < reading < anchorTicks[hi + 1]
            long mid = (lo + hi + 1) >>> 1;
            if (anchorTicks[slot(mid)] <= reading) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private void take() {
        long bestWidth = Long.MAX_VALUE;
        long bestTicks = 0;
        long bestNs = 0;
        long narrowEnough = narrowestWidthNs == Long.MAX_VALUE ? -1 : 2 * narrowestWidthNs;
        for (int i = 0; i < TRIES && bestWidth > narrowEnough; i++) {
            long before = nanoTime.getAsLong();
            long t = ticks.getAsLong();
            long after = nanoTime.getAsLong();
            if (after - before < bestWidth) {
                bestWidth = after - before;
                bestTicks = t;
                bestNs = before + bestWidth / 2;
            }
        }
        if (count > 0 && (bestTicks <= anchorTicks[slot(count - 1)] || bestNs <= anchorNs[slot(count - 1)])) {
            return;  // no tick or no ns elapsed since the last anchor: a segment needs both to advance
        }
        int s = slot(count);
        anchorTicks[s] = bestTicks;
        anchorNs[s] = bestNs;
        narrowestWidthNs = Math.min(narrowestWidthNs, bestWidth);
        widestWidthNs = Math.max(widestWidthNs, bestWidth);
        count++;
    }

    private long oldest() {
        return Math.max(0, count - HISTORY);
    }

    private static int slot(long anchor) {
        return (int) (anchor % HISTORY);
    }
}
