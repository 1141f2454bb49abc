package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.metric.SampleStats;

/**
 * Launch latency: for each device activity starting in the window whose correlation id matches a host API call
 * (the launch or copy call that issued it), {@code activity.start − call.start}. Needs API records
 * (Kineto runtime events, rocprofv3 HIP API trace, nsys runtime table, agent API records); without them the
 * count is 0. A negative value (clocks not comparable) is not a latency and is counted apart as {@code negative}.
 */
public record LaunchLatency(SampleStats latency, long negative) {

    /** The rank's API calls by the correlation id of the device work they launched. */
    public static CallsByCorrelation callsByCorrelation(RankTimeline t) {
        return CallsByCorrelation.of(t.apiCalls());
    }

    public static LaunchLatency of(RankTimeline t, ClassIntervals unions, Window w, CallsByCorrelation calls) {
        SampleStats.Samples samples = new SampleStats.Samples();
        long negative = 0;
        if (!calls.isEmpty()) {
            int n = t.activities().size();
            for (int i = WindowActivities.first(t, unions, w); i < n && t.startNs(i) < w.endNs(); i++) {
                long correlation = t.correlationId(i);
                int c = correlation == 0 || t.startNs(i) < w.startNs() ? -1 : calls.indexOf(correlation);
                if (c < 0) {
                    continue;
                }
                long latency = t.startNs(i) - calls.startNs(c);
                if (latency < 0) {
                    negative++;
                } else {
                    samples.add(latency);
                }
            }
        }
        return new LaunchLatency(samples.stats(), negative);
    }
}
