package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;

import java.util.List;

/** The index range of a timeline's start-sorted activities that can overlap a window, found by binary search. */
final class WindowActivities {
    private WindowActivities() {
    }

    /** First index whose activity may overlap [w.start, w.end): none before it starts late enough to. */
    static int first(RankTimeline t, ClassIntervals unions, Window w) {
        List<DeviceActivity> acts = t.activities();
        long from = w.startNs() - unions.longestActivityNs();
        int lo = 0;
        int hi = acts.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (acts.get(mid).startNs() < from) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    static boolean overlaps(DeviceActivity a, Window w) {
        return a.endNs() > w.startNs() && a.startNs() < w.endNs();
    }

    /** Whether the activity lies in the window for per-activity statistics: it starts inside it. */
    static boolean startsIn(DeviceActivity a, Window w) {
        return a.startNs() >= w.startNs() && a.startNs() < w.endNs();
    }
}
