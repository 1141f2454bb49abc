package dev.aorta.core.metric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The skew of one collective across ranks (docs/metrics.md#collective-skew-across-ranks): for a collective that every
 * rank of a group ran (the n-th call of the same communicator on each rank), on clocks made comparable,
 * <ul>
 *   <li><b>start skew</b> = latest start − earliest start: how long the first rank to arrive waited for the last
 *   (inside the collective kernel, on the device), the cost of imbalance before it;</li>
 *   <li><b>end skew</b> = latest end − earliest end: a collective cannot end anywhere before every rank has joined,
 *   so on aligned clocks this is small; a large one means the clocks or the matching are off.</li>
 * </ul>
 * Per collective kind and message size: the number of collectives matched, the statistics of both skews in ns, and
 * the rank that started last most often (the one the others waited for; the lowest such rank on a tie; a collective
 * all ranks started at the same instant has no last rank; -1 when none had one).
 */
public record CollectiveSkew(CollectiveBandwidth.Kind kind, long messageBytes, int collectives, SampleStats startSkewNs,
                             SampleStats endSkewNs, int lastToStartRank, int timesLastToStart) {

    /** Collects matched collectives. */
    public static final class Builder {
        private record Key(CollectiveBandwidth.Kind kind, long bytes) {
        }

        private final Map<Key, SampleStats.Samples> starts = new LinkedHashMap<>();
        private final Map<Key, SampleStats.Samples> ends = new LinkedHashMap<>();
        private final Map<Key, Map<Integer, Integer>> lastToStart = new LinkedHashMap<>();

        /**
         * One collective matched on several ranks: {@code ranks[i]} started it at {@code startNs[i]} and ended it at
         * {@code endNs[i]}, on a common clock. Fewer than two ranks say nothing about skew and are ignored.
         */
        public void add(CollectiveBandwidth.Kind kind, long messageBytes, int[] ranks, long[] startNs, long[] endNs) {
            if (ranks.length < 2) {
                return;
            }
            Key k = new Key(kind, messageBytes > 0 ? messageBytes : CollectiveBandwidth.UNKNOWN);
            int last = 0;
            long minStart = Long.MAX_VALUE;
            long minEnd = Long.MAX_VALUE;
            long maxEnd = Long.MIN_VALUE;
            for (int i = 0; i < ranks.length; i++) {
                if (startNs[i] > startNs[last] || (startNs[i] == startNs[last] && ranks[i] < ranks[last])) {
                    last = i;
                }
                minStart = Math.min(minStart, startNs[i]);
                minEnd = Math.min(minEnd, endNs[i]);
                maxEnd = Math.max(maxEnd, endNs[i]);
            }
            starts.computeIfAbsent(k, x -> new SampleStats.Samples()).add(startNs[last] - minStart);
            ends.computeIfAbsent(k, x -> new SampleStats.Samples()).add(maxEnd - minEnd);
            Map<Integer, Integer> counts = lastToStart.computeIfAbsent(k, x -> new java.util.TreeMap<>());
            if (startNs[last] > minStart) {
                counts.merge(ranks[last], 1, Integer::sum);
            }
        }

        /** One entry per (kind, size), in the order first matched. */
        public List<CollectiveSkew> build() {
            List<CollectiveSkew> out = new ArrayList<>();
            starts.forEach((k, s) -> {
                Map.Entry<Integer, Integer> most = null;
                for (Map.Entry<Integer, Integer> e : lastToStart.get(k).entrySet()) {
                    if (most == null || e.getValue() > most.getValue()) {
                        most = e;
                    }
                }
                out.add(new CollectiveSkew(k.kind(), k.bytes(), s.count(), s.stats(), ends.get(k).stats(),
                        most == null ? -1 : most.getKey(), most == null ? 0 : most.getValue()));
            });
            return out;
        }
    }
}
