package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.core.metric.StreamUtilization;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A window's {@link StreamUtilization} of every stream active in it, each with the label the report shows.
 *
 * @param label the stream's role label when known, else its number
 */
public record LabelledStreamUtilization(long stream, String label, long busyNs, double utilization) {

    public static List<LabelledStreamUtilization> of(RankTimeline t, ClassIntervals unions, Window w) {
        List<LabelledStreamUtilization> out = new ArrayList<>();
        for (Map.Entry<Long, IntervalSet> e : unions.perStream().entrySet()) {
            StreamUtilization u = StreamUtilization.of(e.getValue(), w.startNs(), w.endNs());
            if (u.busyNs() > 0) {
                out.add(new LabelledStreamUtilization(e.getKey(), t.streamLabel(e.getKey()), u.busyNs(),
                        u.utilization()));
            }
        }
        return out;
    }
}
