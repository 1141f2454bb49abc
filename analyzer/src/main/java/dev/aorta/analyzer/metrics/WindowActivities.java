package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.DispatchLatency;

import java.util.ArrayList;
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
            if (t.startNs(mid) < from) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether the activity lies in the window for per-activity statistics: it starts inside it. */
    static boolean startsIn(DeviceActivity a, Window w) {
        return a.startNs() >= w.startNs() && a.startNs() < w.endNs();
    }

    /** The activities starting in the window, in start order. */
    static List<DeviceActivity> startingIn(RankTimeline t, ClassIntervals unions, Window w) {
        List<DeviceActivity> in = new ArrayList<>();
        List<DeviceActivity> acts = t.activities();
        for (int i = first(t, unions, w); i < acts.size() && t.startNs(i) < w.endNs(); i++) {
            if (t.startNs(i) >= w.startNs()) {  // before the loop's end: it starts in the window
                in.add(acts.get(i));
            }
        }
        return in;
    }

    /** The dispatch latency of the activities starting in the window, from the rank's per-activity values. */
    static DispatchLatency dispatchLatency(RankTimeline t, ClassIntervals unions, Window w,
                                           DispatchLatency.PerActivity values) {
        DispatchLatency.Builder b = new DispatchLatency.Builder();
        List<DeviceActivity> acts = t.activities();
        for (int i = first(t, unions, w); i < acts.size() && t.startNs(i) < w.endNs(); i++) {
            if (t.startNs(i) >= w.startNs()) {  // before the loop's end: it starts in the window
                b.add(values, i);
            }
        }
        return b.build();
    }
}
