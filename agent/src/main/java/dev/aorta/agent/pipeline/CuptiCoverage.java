package dev.aorta.agent.pipeline;

import java.util.Arrays;

/**
 * When CUPTI observed the application, in host ns ({@code System.nanoTime()}): the spans from each subscription
 * (read just before CUPTI is enabled) to its unsubscription (read just before CUPTI's last flush). CUPTI runs only in
 * capture windows, so the correlation join holds for CUPTI's driver calls only the records made inside a span.
 *
 * <p>The source marks the edges on the thread that switches CUPTI, when it switches; the drain thread reads them
 * while it decodes records. The edges therefore reach the join before any record made after them, unlike CUPTI's own
 * records and anchors, which come through the drain thread's queue behind the records it drains first.
 */
public final class CuptiCoverage {
    /** Spans remembered: records are drained within milliseconds of being made. */
    static final int HISTORY = 8;
    private static final long[][] NONE = new long[0][];

    /** {@code [from, until]}, oldest first; the newest is open ({@code until} max) while CUPTI runs. */
    private volatile long[][] spans = NONE;

    /** CUPTI is about to be enabled: calls from now on may have CUPTI records. */
    public synchronized void subscribing(long hostNs) {
        long[][] s = spans;
        if (s.length > 0 && s[s.length - 1][1] == Long.MAX_VALUE) {
            return;  // already covering
        }
        long[][] next = Arrays.copyOfRange(s, Math.max(0, s.length + 1 - HISTORY), s.length + 1);
        next[next.length - 1] = new long[] {hostNs, Long.MAX_VALUE};
        spans = next;
    }

    /** CUPTI is about to be flushed and disabled: calls from now on are outside its windows. */
    public synchronized void unsubscribing(long hostNs) {
        long[][] s = spans;
        if (s.length == 0 || s[s.length - 1][1] != Long.MAX_VALUE) {
            return;
        }
        long[][] next = s.clone();
        next[next.length - 1] = new long[] {s[s.length - 1][0], hostNs};
        spans = next;
    }

    /** Whether CUPTI ran during any part of {@code [startNs, endNs]}; {@code slackNs} for the anchor's error. */
    boolean covers(long startNs, long endNs, long slackNs) {
        for (long[] span : spans) {
            if (endNs >= span[0] - slackNs && startNs <= span[1]) {
                return true;
            }
        }
        return false;
    }
}
