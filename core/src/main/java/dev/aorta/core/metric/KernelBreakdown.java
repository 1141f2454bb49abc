package dev.aorta.core.metric;

import dev.aorta.core.event.DeviceActivity;

import java.util.Comparator;
import java.util.List;

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
        DurationsByName byName = new DurationsByName();
        for (DeviceActivity a : activities) {
            byName.add(a.name(), a.durationNs());
        }
        List<Entry> out = byName.rows(Entry::new);
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : NAMES.compare(a.name(), b.name()));
        return out;
    }
}
