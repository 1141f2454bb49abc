package dev.aorta.core.metric;

import dev.aorta.core.event.ApiCall;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;

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
        return byName(calls.size(), i -> calls.get(i).name(), i -> calls.get(i).startNs(), i -> calls.get(i).endNs());
    }

    /** The same for n calls given by accessors, for callers that hold calls column-wise (no record built per call). */
    public static List<Entry> byName(int n, IntFunction<String> nameOf, IntToLongFunction startOf,
                                     IntToLongFunction endOf) {
        Map<String, Group> groups = new HashMap<>();
        long all = 0;
        for (int i = 0; i < n; i++) {
            long d = Math.max(0, endOf.applyAsLong(i) - startOf.applyAsLong(i));
            String name = nameOf.apply(i);
            Group g = groups.get(name);
            if (g == null) {
                g = new Group();
                groups.put(name, g);
            }
            g.durations.add(d);
            g.totalNs += d;
            all += d;
        }
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, Group> e : groups.entrySet()) {
            Group g = e.getValue();
            out.add(new Entry(e.getKey(), g.durations.count(), g.totalNs, g.durations.stats(),
                    all == 0 ? 0 : (double) g.totalNs / all));
        }
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : a.name().compareTo(b.name()));
        return out;
    }

    /** One name's durations and their sum, found with one lookup per call. */
    private static final class Group {
        final SampleStats.Samples durations = new SampleStats.Samples();
        long totalNs;
    }
}
