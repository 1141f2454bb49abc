package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.SampleStats;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Launch latency: for each device activity starting in the window whose correlation id matches a host API call
 * (the launch or copy call that issued it), {@code activity.start − call.start}. Needs API records
 * (Kineto runtime events, rocprofv3 HIP API trace, nsys runtime table, agent API records); without them the
 * count is 0. A negative value (clocks not comparable) is not a latency and is counted apart as {@code negative}.
 */
public record LaunchLatency(SampleStats latency, long negative) {

    /**
     * API calls by the correlation id of the device work they launched, built once per timeline. An agent call
     * traced with CUPTI carries CUPTI's id apart ({@code args.cupti_correlation}, the id its CUPTI activity has);
     * that one comes first, as the agent's own id may equal an unrelated CUPTI id.
     */
    public static Map<Long, ApiCall> callsByCorrelation(RankTimeline t) {
        Map<Long, ApiCall> out = new HashMap<>();
        for (ApiCall c : t.apiCalls()) {
            if (c.args().get("cupti_correlation") instanceof Number cupti && cupti.longValue() != 0) {
                out.putIfAbsent(cupti.longValue(), c);
            }
        }
        for (ApiCall c : t.apiCalls()) {
            if (c.correlationId() != 0) {
                out.putIfAbsent(c.correlationId(), c);
            }
        }
        return out;
    }

    public static LaunchLatency of(RankTimeline t, ClassIntervals unions, Window w, Map<Long, ApiCall> calls) {
        SampleStats.Samples samples = new SampleStats.Samples();
        long negative = 0;
        if (!calls.isEmpty()) {
            List<DeviceActivity> acts = t.activities();
            for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
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
