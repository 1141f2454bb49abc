package dev.aorta.core.metric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Durations grouped by name, the accumulation behind {@link ApiStatistics} and {@link KernelBreakdown}: per name the
 * count, the summed time and the {@link SampleStats} of the durations, and each name's share of the grand total. One
 * map lookup per duration and no boxed sums (a 780 MB trace's windows add millions).
 */
final class DurationsByName {
    /** Makes a table's row from one name's figures; {@code share} in [0, 1]. */
    interface Row<E> {
        E of(String name, int count, long totalNs, SampleStats durationNs, double share);
    }

    private final Map<String, Group> groups = new HashMap<>();
    private long all;

    /** Adds one duration of {@code name} (null is a name of its own). */
    void add(String name, long ns) {
        Group g = groups.get(name);
        if (g == null) {
            g = new Group();
            groups.put(name, g);
        }
        g.durations.add(ns);
        g.totalNs += ns;
        all += ns;
    }

    /** One row per name, in no particular order. */
    <E> List<E> rows(Row<E> row) {
        List<E> out = new ArrayList<>(groups.size());
        for (Map.Entry<String, Group> e : groups.entrySet()) {
            Group g = e.getValue();
            out.add(row.of(e.getKey(), g.durations.count(), g.totalNs, g.durations.stats(),
                    all == 0 ? 0 : (double) g.totalNs / all));
        }
        return out;
    }

    private static final class Group {
        final SampleStats.Samples durations = new SampleStats.Samples();
        long totalNs;
    }
}
