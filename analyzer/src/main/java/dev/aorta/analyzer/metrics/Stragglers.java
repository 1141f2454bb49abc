package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The straggler rank of each iteration: the rank the others waited for. On clocks aligned by
 * {@link CollectiveAlignment}, a rank's arrival at the iteration's k-th collective is that collective's start on
 * it; the rank arriving last is the one the others wait for. A rank's lateness in an iteration is the sum over the
 * iteration's collectives of (its arrival − the earliest arrival); the straggler is the rank with the largest
 * lateness. Iterations are matched across ranks by step number; only iterations present on at least two ranks
 * with collectives on each are reported.
 */
public record Stragglers(long step, int stragglerRank, long latenessNs, Map<Integer, Long> latenessByRank) {

    public static List<Stragglers> of(List<RankTimeline> ranks, Map<Integer, CollectiveAlignment.Offset> offsets) {
        // step -> rank -> aligned collective starts in the step, in order
        Map<Long, Map<Integer, List<Long>>> arrivals = new TreeMap<>();
        for (RankTimeline t : ranks) {
            CollectiveAlignment.Offset o = offsets.get(t.rank());
            if (o == null || !o.aligned()) {
                continue;
            }
            for (Marker m : t.markers()) {
                if (m.kind() != Marker.Kind.ITERATION) {
                    continue;
                }
                List<Long> starts = new ArrayList<>();
                List<DeviceActivity> acts = t.activities();
                for (int i = firstStartingAt(acts, m.startNs()); i < acts.size() && acts.get(i).startNs() < m.endNs(); i++) {
                    DeviceActivity a = acts.get(i);
                    if (t.classOf(i) == ActivityClass.COMMUNICATION && a.startNs() >= m.startNs() && a.startNs() < m.endNs()) {
                        starts.add(a.startNs() + o.offsetNs());
                    }
                }
                if (!starts.isEmpty()) {
                    arrivals.computeIfAbsent(m.step(), s -> new HashMap<>()).putIfAbsent(t.rank(), starts);
                }
            }
        }
        List<Stragglers> out = new ArrayList<>();
        arrivals.forEach((step, byRank) -> {
            if (byRank.size() < 2) {
                return;
            }
            int k = byRank.values().stream().mapToInt(List::size).min().orElse(0);
            Map<Integer, Long> lateness = new TreeMap<>();
            byRank.keySet().forEach(r -> lateness.put(r, 0L));
            for (int i = 0; i < k; i++) {
                final int idx = i;
                long earliest = byRank.values().stream().mapToLong(l -> l.get(idx)).min().orElse(0);
                byRank.forEach((r, l) -> lateness.merge(r, l.get(idx) - earliest, Long::sum));
            }
            int worst = new TreeSet<>(lateness.keySet()).first();
            for (Map.Entry<Integer, Long> e : lateness.entrySet()) {
                if (e.getValue() > lateness.get(worst)) {
                    worst = e.getKey();
                }
            }
            out.add(new Stragglers(step, worst, lateness.get(worst), lateness));
        });
        return out;
    }

    /** The first index of start-sorted activities starting at or after {@code t}. */
    private static int firstStartingAt(List<DeviceActivity> acts, long t) {
        int lo = 0;
        int hi = acts.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (acts.get(mid).startNs() < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
