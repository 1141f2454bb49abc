package dev.aorta.core.metric;

import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kernel breakdown (docs/metrics.md#kernel-breakdown): a set of device activities grouped by name, each name with its
 * count, total duration (summed, so overlapping activities each count), the {@link SampleStats} of its durations
 * and its share of the set's total duration; the name with the most total time first (ties by name). The analyzer
 * applies it per class and window, the harness to a run's kernels.
 */
public final class KernelBreakdown {
    /** One name's statistics, durations in ns; {@code share} in [0, 1]. */
    public record Entry(String name, int count, long totalNs, SampleStats durationNs, double share) {
    }

    /** Names in their natural order, a missing one first. */
    private static final Comparator<String> NAMES = Comparator.nullsFirst(Comparator.naturalOrder());

    private KernelBreakdown() {
    }

    public static List<Entry> byName(List<DeviceActivity> activities) {
        Map<String, Group> groups = new HashMap<>();
        long all = 0;
        for (DeviceActivity a : activities) {
            Group g = groups.get(a.name());
            if (g == null) {
                g = new Group();
                groups.put(a.name(), g);
            }
            g.durations.add(a.durationNs());
            g.totalNs += a.durationNs();
            all += a.durationNs();
        }
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, Group> e : groups.entrySet()) {
            Group g = e.getValue();
            out.add(new Entry(e.getKey(), g.durations.count(), g.totalNs, g.durations.stats(),
                    all == 0 ? 0 : (double) g.totalNs / all));
        }
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : NAMES.compare(a.name(), b.name()));
        return out;
    }

    /** One name's durations and their sum, found with one lookup per activity. */
    private static final class Group {
        final SampleStats.Samples durations = new SampleStats.Samples();
        long totalNs;
    }
}
