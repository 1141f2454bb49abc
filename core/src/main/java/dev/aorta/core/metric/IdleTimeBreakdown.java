package dev.aorta.core.metric;

import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * Idle-time breakdown per stream (docs/metrics.md#idle-time-breakdown), HTA's three causes. A stream is idle between
 * the end of one of its activities and the start of its next one; each such gap gets one cause, decided by the next
 * activity:
 * <ul>
 *   <li><b>host wait</b>: the next activity was enqueued (CUPTI {@code queued}, else the start of its launch call)
 *       after the stream went idle, so the host had not yet asked for it;</li>
 *   <li><b>kernel wait</b>: otherwise, when the gap is shorter than the threshold (HTA's
 *       {@code consecutive_kernel_delay}, 30 ns by default): the device's own cost of starting the next activity;</li>
 *   <li><b>other</b>: every other gap, the next activity was queued but did not start: event waits on other streams,
 *       synchronisation, or an enqueue time that is unknown.</li>
 * </ul>
 * Where ours differs from HTA: a stream's idle gap starts at the latest end of all its earlier activities (HTA takes
 * the previous row's end and also sums the negative "gaps" of overlapping activities, which lowers its idle total);
 * gaps are clipped to the window; activities of class OTHER take no part. Values in ns.
 *
 * @param stream the stream's id
 */
public record IdleTimeBreakdown(long stream, long hostWaitNs, long kernelWaitNs, long otherNs, int hostWaitGaps,
                                int kernelWaitGaps, int otherGaps) {
    /** HTA's default {@code consecutive_kernel_delay}, in ns. */
    public static final long DEFAULT_KERNEL_WAIT_THRESHOLD_NS = 30;

    public enum Cause { HOST_WAIT, KERNEL_WAIT, OTHER }

    /** One idle stretch of a stream, [from, to), and why it was idle. */
    public record Gap(long stream, long fromNs, long toNs, Cause cause) {
    }

    public long idleNs() {
        return hostWaitNs + kernelWaitNs + otherNs;
    }

    /**
     * Every idle gap of every stream, computed once per timeline.
     *
     * @param activities sorted by start
     * @param enqueueNs  each activity's enqueue time by index, or {@link DeviceActivity#UNKNOWN}
     * @param counts     which activity indices take part (the classified ones)
     */
    public static Gaps gaps(List<DeviceActivity> activities, long[] enqueueNs, IntPredicate counts,
                            long kernelWaitThresholdNs) {
        Map<Long, Long> lastEnd = new HashMap<>();
        List<Gap> out = new ArrayList<>();
        for (int i = 0; i < activities.size(); i++) {
            if (!counts.test(i)) {
                continue;
            }
            DeviceActivity a = activities.get(i);
            Long idleFrom = lastEnd.get(a.stream());
            if (idleFrom != null && a.startNs() > idleFrom) {
                long e = enqueueNs[i];
                Cause cause = e != DeviceActivity.UNKNOWN && e > idleFrom ? Cause.HOST_WAIT
                        : a.startNs() - idleFrom < kernelWaitThresholdNs ? Cause.KERNEL_WAIT : Cause.OTHER;
                out.add(new Gap(a.stream(), idleFrom, a.startNs(), cause));
            }
            lastEnd.merge(a.stream(), a.endNs(), Math::max);
        }
        return new Gaps(out);
    }

    /**
     * A timeline's gaps in order of their end (each ends where an activity starts, and activities come sorted by
     * start), with the longest gap's length: the gaps that can overlap a window are then found by binary search
     * rather than by reading every gap for every window.
     */
    public static final class Gaps {
        private final List<Gap> byEnd;
        private final long longestNs;

        Gaps(List<Gap> byEnd) {
            this.byEnd = byEnd;
            this.longestNs = byEnd.stream().mapToLong(g -> g.toNs() - g.fromNs()).max().orElse(0);
        }

        /** The first gap ending after {@code ns}. */
        private int firstEndingAfter(long ns) {
            int lo = 0;
            int hi = byEnd.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (byEnd.get(mid).toNs() <= ns) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /** The breakdown of each stream over [fromNs, toNs), gaps clipped to it; streams in id order, idle ones only. */
    public static List<IdleTimeBreakdown> perStream(Gaps gaps, long fromNs, long toNs) {
        Map<Long, long[]> sums = new TreeMap<>(); // per stream: ns and count of each cause
        // a gap overlaps the window only if it ends after fromNs and starts before toNs, so ends before toNs + longest
        int end = toNs > Long.MAX_VALUE - gaps.longestNs ? gaps.byEnd.size() : gaps.firstEndingAfter(toNs + gaps.longestNs);
        for (Gap g : gaps.byEnd.subList(Math.min(gaps.firstEndingAfter(fromNs), end), end)) {
            long clipped = Math.min(g.toNs(), toNs) - Math.max(g.fromNs(), fromNs);
            if (clipped <= 0) {
                continue;
            }
            long[] s = sums.computeIfAbsent(g.stream(), k -> new long[6]);
            s[g.cause().ordinal()] += clipped;
            s[3 + g.cause().ordinal()]++;
        }
        List<IdleTimeBreakdown> out = new ArrayList<>();
        sums.forEach((stream, s) -> out.add(new IdleTimeBreakdown(stream, s[0], s[1], s[2], (int) s[3], (int) s[4],
                (int) s[5])));
        return out;
    }
}
