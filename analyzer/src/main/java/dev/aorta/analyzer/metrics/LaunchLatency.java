package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.SampleStats;

import java.util.List;

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
            List<DeviceActivity> acts = t.activities();
            for (int i = WindowActivities.first(t, unions, w); i < acts.size() && t.startNs(i) < w.endNs(); i++) {
                DeviceActivity a = acts.get(i);
                ApiCall c = a.correlationId() == 0 || !WindowActivities.startsIn(a, w) ? null : calls.get(a.correlationId());
                if (c == null) {
                    continue;
                }
                long latency = a.startNs() - c.startNs();
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
