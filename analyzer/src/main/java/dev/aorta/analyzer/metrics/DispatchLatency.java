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
 * Dispatch latency (ours, docs/metrics.md#dispatch-latency): how long a kernel that was queued while the device was still busy with what it
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
 * The per-activity values are computed once per rank ({@link #perActivity}) and summarised per window.
 */
public record DispatchLatency(LatencyStats sameStream, LatencyStats crossStream, LatencyStats fromEnqueue) {
    private static final byte NONE = 0;
    private static final byte SAME_STREAM = 1;
    private static final byte CROSS_STREAM = 2;
    private static final byte FROM_ENQUEUE = 3;

    /** Each activity's latency and which kind it is, by activity index. */
    public record PerActivity(long[] latencyNs, byte[] kind) {
    }

    public static PerActivity perActivity(RankTimeline t, Map<Long, ApiCall> calls) {
        List<DeviceActivity> acts = t.activities();
        long[] latency = new long[acts.size()];
        byte[] kind = new byte[acts.size()];
        Map<Long, List<long[]>> enqueuedByStream = new HashMap<>(); // per stream: {enqueue, end}, in start order
        Map<Long, Long> lastEndOnStream = new HashMap<>();
        Map<Long, List<Dependency>> waitsByStream = new HashMap<>();
        for (Dependency d : t.dependencies()) {
            waitsByStream.computeIfAbsent(d.waitStream(), s -> new ArrayList<>()).add(d);
        }
        for (int i = 0; i < acts.size(); i++) {
            DeviceActivity a = acts.get(i);
            if (t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long e = enqueueTime(a, calls);
            Long prevEnd = lastEndOnStream.put(a.stream(), a.endNs());
            if (e == DeviceActivity.UNKNOWN) {
                continue;
            }
            enqueuedByStream.computeIfAbsent(a.stream(), s -> new ArrayList<>()).add(new long[] {e, a.endNs()});
            long p = prevEnd == null ? Long.MIN_VALUE : prevEnd;
            long x = crossDependencyEnd(waitsByStream.get(a.stream()), e, enqueuedByStream);
            long ready = Math.max(p, x);
            if (ready > e) {
                latency[i] = Math.max(0, a.startNs() - ready);
                kind[i] = p >= x ? SAME_STREAM : CROSS_STREAM;
            } else {
                latency[i] = Math.max(0, a.startNs() - e);
                kind[i] = FROM_ENQUEUE;
            }
        }
        return new PerActivity(latency, kind);
    }

    public static DispatchLatency of(RankTimeline t, ClassIntervals unions, Window w, PerActivity values) {
        LatencyStats.Samples same = new LatencyStats.Samples();
        LatencyStats.Samples cross = new LatencyStats.Samples();
        LatencyStats.Samples enqueue = new LatencyStats.Samples();
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            if (!WindowActivities.startsIn(acts.get(i), w)) {
                continue;
            }
            switch (values.kind()[i]) {
                case SAME_STREAM -> same.add(values.latencyNs()[i]);
                case CROSS_STREAM -> cross.add(values.latencyNs()[i]);
                case FROM_ENQUEUE -> enqueue.add(values.latencyNs()[i]);
                default -> {
                    // no enqueue time known
                }
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
