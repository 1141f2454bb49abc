package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.classify.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dispatch latency (§5, ours): how long a kernel that was queued while the device was still busy with what it
 * depends on waits after that dependency ends. For each activity with a known enqueue time e ({@code queued} when
 * the trace has it, else the start of its launch call found by correlation id):
 * <ul>
 *   <li>the same-stream predecessor end p = end of the previous activity on its stream;</li>
 *   <li>the cross-stream dependency end x = for the latest event wait on its stream enqueued before e, the end of the
 *       last activity of the recording stream enqueued before the event was recorded;</li>
 *   <li>when max(p, x) > e (it was queued behind work), latency = start − max(p, x), counted as same-stream when
 *       p ≥ x, else cross-stream; otherwise it waited on nothing but the launch, and start − e is counted as
 *       {@code fromEnqueue}.</li>
 * </ul>
 * Without enqueue times (no API records and no CUPTI latency timestamps) nothing can be said: counts are 0.
 */
public record DispatchLatency(LatencyStats sameStream, LatencyStats crossStream, LatencyStats fromEnqueue) {

    public static DispatchLatency of(RankTimeline t, ClassIntervals unions, Window w, Map<Long, ApiCall> calls) {
        List<DeviceActivity> acts = t.activities();
        Map<Long, List<long[]>> enqueuedByStream = new HashMap<>(); // per stream: {enqueue, end}, in start order
        Map<Long, Long> lastEndOnStream = new HashMap<>();
        LatencyStats.Samples same = new LatencyStats.Samples();
        LatencyStats.Samples cross = new LatencyStats.Samples();
        LatencyStats.Samples enqueue = new LatencyStats.Samples();
        Map<Long, List<Dependency>> waitsByStream = new HashMap<>();
        for (Dependency d : t.dependencies()) {
            waitsByStream.computeIfAbsent(d.waitStream(), s -> new ArrayList<>()).add(d);
        }
        // walk from the beginning: predecessors before the window matter for kernels inside it
        for (int i = 0; i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long e = enqueueTime(a, calls);
            Long prevEnd = lastEndOnStream.put(a.stream(), a.endNs());
            if (e != DeviceActivity.UNKNOWN) {
                enqueuedByStream.computeIfAbsent(a.stream(), s -> new ArrayList<>()).add(new long[] {e, a.endNs()});
            }
            if (e == DeviceActivity.UNKNOWN || !WindowActivities.startsIn(a, w)) {
                continue;
            }
            long p = prevEnd == null ? Long.MIN_VALUE : prevEnd;
            long x = crossDependencyEnd(waitsByStream.get(a.stream()), e, enqueuedByStream);
            long ready = Math.max(p, x);
            if (ready > e) {
                long latency = Math.max(0, a.startNs() - ready);
                (p >= x ? same : cross).add(latency);
            } else {
                enqueue.add(Math.max(0, a.startNs() - e));
            }
        }
        return new DispatchLatency(same.stats(), cross.stats(), enqueue.stats());
    }

    private static long enqueueTime(DeviceActivity a, Map<Long, ApiCall> calls) {
        if (a.queuedNs() != DeviceActivity.UNKNOWN && a.queuedNs() > 0) {
            return a.queuedNs();
        }
        ApiCall c = a.correlationId() == 0 ? null : calls.get(a.correlationId());
        return c == null ? DeviceActivity.UNKNOWN : c.startNs();
    }

    private static long crossDependencyEnd(List<Dependency> waits, long enqueue, Map<Long, List<long[]>> enqueued) {
        if (waits == null) {
            return Long.MIN_VALUE;
        }
        Dependency latest = null;
        for (Dependency d : waits) {
            if (d.waitNs() <= enqueue && (latest == null || d.waitNs() > latest.waitNs())) {
                latest = d;
            }
        }
        if (latest == null) {
            return Long.MIN_VALUE;
        }
        long end = Long.MIN_VALUE;
        for (long[] r : enqueued.getOrDefault(latest.recordStream(), List.of())) {
            if (r[0] <= latest.recordNs()) {
                end = Math.max(end, r[1]);
            }
        }
        return end;
    }
}
