package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.classify.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kernel breakdown: device activities starting in the window grouped by name within each class (compute,
 * communication, memory), the top N names of each class by total time, each with its count, total, mean, min and
 * max duration and its share of the class's total time (summed durations, so overlapping kernels each count).
 */
public final class KernelBreakdown {
    /** One name's statistics. {@code shareOfClass} is in [0,1]. */
    public record Entry(ActivityClass activityClass, String name, long count, long totalNs, double meanNs, long minNs,
                        long maxNs, double shareOfClass) {
    }

    private KernelBreakdown() {
    }

    public static List<Entry> of(RankTimeline t, ClassIntervals unions, Window w, int topN) {
        Map<ActivityClass, Map<String, long[]>> byClass = new EnumMap<>(ActivityClass.class);
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (!WindowActivities.startsIn(a, w) || t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long[] s = byClass.computeIfAbsent(t.classOf(i), k -> new HashMap<>())
                    .computeIfAbsent(a.name(), k -> new long[] {0, 0, Long.MAX_VALUE, 0});
            long d = a.durationNs();
            s[0]++;
            s[1] += d;
            s[2] = Math.min(s[2], d);
            s[3] = Math.max(s[3], d);
        }
        List<Entry> out = new ArrayList<>();
        byClass.forEach((cls, names) -> {
            long classTotal = names.values().stream().mapToLong(s -> s[1]).sum();
            names.entrySet().stream()
                    .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed()
                            .thenComparing(Map.Entry::getKey))
                    .limit(topN)
                    .forEach(e -> {
                        long[] s = e.getValue();
                        out.add(new Entry(cls, e.getKey(), s[0], s[1], (double) s[1] / s[0], s[2], s[3],
                                classTotal == 0 ? 0 : (double) s[1] / classTotal));
                    });
        });
        return out;
    }
}
