package dev.aorta.core.metric;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dependency;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Dispatch latency (ours, docs/metrics.md#dispatch-latency): how long an activity that was queued while what it depends
 * on was still running waits after that dependency ends. For each activity with a known enqueue time e (CUPTI
 * {@code queued}, else the start of its launch call):
 * <ul>
 *   <li>p = end of the previous activity on its stream (the same-stream dependency);</li>
 *   <li>x = for the latest event wait on its stream issued no later than e, the end of the last activity the
 *       recording stream had enqueued when the event was recorded (the cross-stream dependency);</li>
 *   <li>when max(p, x) > e it was queued behind work: latency = start − max(p, x), <b>same-stream</b> when p ≥ x,
 *       else <b>cross-stream</b>; otherwise it waited on nothing but its launch: start − e is counted as
 *       <b>from enqueue</b>.</li>
 * </ul>
 * This definition replaced the harness's older one (the device-side predecessor: whichever kernel happened to end
 * last before the activity started, counted only when it was queued before that kernel ended), because it measures
 * the wait from the moment the activity could run by its real dependencies, stream order and event waits, rather
 * than from an unrelated kernel that finished nearby; it also works without CUPTI's {@code queued} (from launch-call
 * times, so on Kineto, rocprofv3 and Nsight Systems traces) and leaves no activity with an enqueue time uncounted.
 * Values in ns.
 */
public record DispatchLatency(SampleStats sameStream, SampleStats crossStream, SampleStats fromEnqueue) {
    private static final byte SAME_STREAM = 1;
    private static final byte CROSS_STREAM = 2;
    private static final byte FROM_ENQUEUE = 3;

    /** Each activity's latency and which kind it is, by activity index; computed once, summarised per window. */
    public record PerActivity(long[] latencyNs, byte[] kind) {
    }

    /**
     * @param activities   sorted by start
     * @param enqueueNs    each activity's enqueue time, or {@link DeviceActivity#UNKNOWN}
     * @param counted      which activities take part at all (the analyzer leaves out OTHER records)
     * @param dependencies event waits between streams, on the activities' clock
     */
    public static PerActivity perActivity(List<DeviceActivity> activities, long[] enqueueNs, IntPredicate counted,
                                          List<Dependency> dependencies) {
        long[] latency = new long[activities.size()];
        byte[] kind = new byte[activities.size()];
        Map<Long, List<long[]>> enqueuedByStream = new HashMap<>(); // per stream: {enqueue, end}, in start order
        Map<Long, Long> lastEndOnStream = new HashMap<>();
        Map<Long, List<Dependency>> waitsByStream = new HashMap<>();
        for (Dependency d : dependencies) {
            waitsByStream.computeIfAbsent(d.waitStream(), s -> new ArrayList<>()).add(d);
        }
        for (int i = 0; i < activities.size(); i++) {
            if (!counted.test(i)) {
                continue;
            }
            DeviceActivity a = activities.get(i);
            long e = enqueueNs[i];
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

    /** Whether any activity had an enqueue time: without one, nothing can be said. */
    public boolean measured() {
        return sameStream.count() + crossStream.count() + fromEnqueue.count() > 0;
    }

    /** Summarises the per-activity values of a selection of activities (a window's). */
    public static final class Builder {
        private final SampleStats.Samples same = new SampleStats.Samples();
        private final SampleStats.Samples cross = new SampleStats.Samples();
        private final SampleStats.Samples enqueue = new SampleStats.Samples();

        public Builder add(PerActivity values, int i) {
            switch (values.kind()[i]) {
                case SAME_STREAM -> same.add(values.latencyNs()[i]);
                case CROSS_STREAM -> cross.add(values.latencyNs()[i]);
                case FROM_ENQUEUE -> enqueue.add(values.latencyNs()[i]);
                default -> {
                    // no enqueue time known
                }
            }
            return this;
        }

        public DispatchLatency build() {
            return new DispatchLatency(same.stats(), cross.stats(), enqueue.stats());
        }
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
