package dev.aorta.core.metric;

import dev.aorta.core.event.ApiCall;

import java.util.List;
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
        DurationsByName byName = new DurationsByName();
        for (int i = 0; i < n; i++) {
            byName.add(nameOf.apply(i), Math.max(0, endOf.applyAsLong(i) - startOf.applyAsLong(i)));
        }
        List<Entry> out = byName.rows(Entry::new);
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : a.name().compareTo(b.name()));
        return out;
    }
}
