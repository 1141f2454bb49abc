package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A window's kernel breakdown per class: the {@link dev.aorta.core.metric.KernelBreakdown} of the compute,
 * communication and memory activities starting in the window, the top N names of each class.
 */
public final class KernelBreakdown {
    /** One name's statistics. {@code shareOfClass} is in [0,1]. */
    public record Entry(ActivityClass activityClass, String name, long count, long totalNs, double meanNs, long minNs,
                        long maxNs, double shareOfClass) {
    }

    private KernelBreakdown() {
    }

    public static List<Entry> of(RankTimeline t, ClassIntervals unions, Window w, int topN) {
        Map<ActivityClass, List<DeviceActivity>> byClass = new EnumMap<>(ActivityClass.class);
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (WindowActivities.startsIn(a, w) && t.classOf(i) != ActivityClass.OTHER) {
                byClass.computeIfAbsent(t.classOf(i), k -> new ArrayList<>()).add(a);
            }
        }
        List<Entry> out = new ArrayList<>();
        byClass.forEach((cls, activities) -> dev.aorta.core.metric.KernelBreakdown.byName(activities).stream()
                .limit(topN)
                .forEach(e -> out.add(new Entry(cls, e.name(), e.count(), e.totalNs(), e.durationNs().mean(),
                        (long) e.durationNs().min(), (long) e.durationNs().max(), e.share()))));
        return out;
    }
}
