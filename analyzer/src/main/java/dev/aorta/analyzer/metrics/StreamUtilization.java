package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.interval.IntervalSet;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Per-stream utilization (docs/metrics.md): |U(the stream's activities) ∩ W| / |W|, for every stream active in the window.
 *
 * @param label the stream's role label when known, else its number
 */
public record StreamUtilization(long stream, String label, long busyNs, double utilization) {

    public static List<StreamUtilization> of(RankTimeline t, ClassIntervals unions, Window w) {
        List<StreamUtilization> out = new ArrayList<>();
        for (Map.Entry<Long, IntervalSet> e : unions.perStream().entrySet()) {
            long busy = e.getValue().lengthWithin(w.startNs(), w.endNs());
            if (busy > 0) {
                out.add(new StreamUtilization(e.getKey(), t.streamLabel(e.getKey()), busy,
                        w.lengthNs() == 0 ? 0 : (double) busy / w.lengthNs()));
            }
        }
        return out;
    }
}
