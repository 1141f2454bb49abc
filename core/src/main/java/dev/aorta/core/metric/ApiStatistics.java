package dev.aorta.core.metric;

import dev.aorta.core.event.ApiCall;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CUDA/HIP API statistics (docs/metrics.md#cudahip-api-statistics): host calls into the GPU runtime or driver
 * grouped by name; per name its count, total host time (summed; calls of several threads may overlap), the
 * {@link SampleStats} of its durations and its share of all calls' total; the name with the most total time first
 * (ties by name). TraceLens's and HTA's "CUDA runtime" summaries are this table. Values in ns.
 */
public final class ApiStatistics {
    /** One call name's statistics; {@code share} in [0, 1]. */
    public record Entry(String name, int count, long totalNs, SampleStats durationNs, double share) {
    }

    private ApiStatistics() {
    }

    public static List<Entry> byName(List<ApiCall> calls) {
        Map<String, SampleStats.Samples> durations = new HashMap<>();
        Map<String, Long> totals = new HashMap<>();
        long all = 0;
        for (ApiCall c : calls) {
            long d = Math.max(0, c.endNs() - c.startNs());
            durations.computeIfAbsent(c.name(), n -> new SampleStats.Samples()).add(d);
            totals.merge(c.name(), d, Long::sum);
            all += d;
        }
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, SampleStats.Samples> e : durations.entrySet()) {
            long total = totals.get(e.getKey());
            out.add(new Entry(e.getKey(), e.getValue().count(), total, e.getValue().stats(),
                    all == 0 ? 0 : (double) total / all));
        }
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : a.name().compareTo(b.name()));
        return out;
    }
}
