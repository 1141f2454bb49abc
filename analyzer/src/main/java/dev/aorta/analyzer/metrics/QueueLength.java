package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Queue length over time: the number of device operations submitted and not yet finished, as a step function
 * over the window. An operation counts from its enqueue time (CUPTI {@code queued}, or the start of its launch
 * call) when known — {@code basis = "enqueue"} — else from its start, which makes it the number of operations
 * running at once ({@code basis = "running"}). Reported: the maximum, the time-weighted mean, and the change
 * points (time, length) for plotting; and the same per stream ({@link StreamQueue}).
 *
 * <p><b>Blocked on a full queue</b> (per stream): CUDA accepts a bounded number of pending launches per stream; past
 * it, a launch call blocks in the host until the device finishes work. The limit used is
 * {@link #PENDING_LAUNCH_LIMIT} = 1024 pending operations per stream, CUDA's default. A trace records the call's
 * span, not the moment a slot freed inside it, so what is measured is: the launch calls (linked to a device activity
 * of the stream by correlation id) that started while their stream already had at least that many operations
 * enqueued and not finished, their count and their summed host duration (clipped to the window). That bounds the
 * blocked time from above (the call's own work is in it) and is 0 when the queue never filled; without enqueue
 * times (basis {@code running}) nothing can be said and it is 0.
 */
public record QueueLength(String basis, long max, double timeWeightedMean, List<long[]> changePoints,
                          List<StreamQueue> streams) {
    /** Pending operations per stream past which a launch blocks the host: CUDA's default. */
    public static final int PENDING_LAUNCH_LIMIT = 1024;

    /** One stream's queue: its maximum and time-weighted mean length, and the launch calls made while it was full. */
    public record StreamQueue(long stream, String label, long max, double timeWeightedMean, long blockedCalls,
                              long blockedNs) {
    }

    public static QueueLength of(RankTimeline t, ClassIntervals unions, Window w, CallsByCorrelation calls) {
        return of(t, unions, w, calls, PENDING_LAUNCH_LIMIT);
    }

    static QueueLength of(RankTimeline t, ClassIntervals unions, Window w, CallsByCorrelation calls, int limit) {
        List<long[]> edges = new ArrayList<>(); // {time, +1/-1}
        Map<Long, List<long[]>> streamEdges = new java.util.TreeMap<>();
        Map<Long, List<long[]>> streamSpans = new java.util.HashMap<>();  // {enqueue, end} of each operation
        // each stream's launch calls by their index in the rank's calls: the same call once, however many operations it
        // launched (an index names one call, and two calls reached by different ids are never equal records)
        Map<Long, Map<Integer, ApiCall>> streamCalls = new java.util.HashMap<>();
        boolean anyEnqueue = false;
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && t.startNs(i) < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (!WindowActivities.overlaps(a, w) || t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long from = a.startNs();
            int callIndex = a.correlationId() == 0 || calls.isEmpty() ? -1 : calls.indexOf(a.correlationId());
            ApiCall c = callIndex < 0 ? null : calls.call(callIndex);
            if (a.queuedNs() > 0) {
                from = Math.min(from, a.queuedNs());
                anyEnqueue = true;
            } else if (c != null) {
                from = Math.min(from, c.startNs());
                anyEnqueue = true;
            }
            long[] up = {Math.max(from, w.startNs()), 1};
            long[] down = {Math.min(a.endNs(), w.endNs()), -1};
            edges.add(up);
            edges.add(down);
            List<long[]> se = streamEdges.computeIfAbsent(a.stream(), x -> new ArrayList<>());
            se.add(up);
            se.add(down);
            streamSpans.computeIfAbsent(a.stream(), x -> new ArrayList<>()).add(new long[] {from, a.endNs()});
            if (c != null && c.endNs() > w.startNs() && c.startNs() < w.endNs()) {
                streamCalls.computeIfAbsent(a.stream(), x -> new java.util.LinkedHashMap<>()).putIfAbsent(callIndex, c);
            }
        }
        List<StreamQueue> streams = new ArrayList<>();
        for (Map.Entry<Long, List<long[]>> e : streamEdges.entrySet()) {
            Step step = Step.of(e.getValue(), w);
            long[] blocked = anyEnqueue ? blocked(streamSpans.get(e.getKey()),
                    streamCalls.getOrDefault(e.getKey(), Map.of()).values(), w, limit) : new long[2];
            streams.add(new StreamQueue(e.getKey(), t.streamLabel(e.getKey()), step.max, step.mean, blocked[0],
                    blocked[1]));
        }
        Step all = Step.of(edges, w);
        return new QueueLength(anyEnqueue ? "enqueue" : "running", all.max, all.mean, all.points, streams);
    }

    /** {calls, ns}: the launch calls that started while ≥ limit of the stream's operations were pending. */
    private static long[] blocked(List<long[]> spans, java.util.Collection<ApiCall> calls, Window w, int limit) {
        long[] enqueued = spans.stream().mapToLong(s -> s[0]).sorted().toArray();
        long[] ended = spans.stream().mapToLong(s -> s[1]).sorted().toArray();
        long[] out = new long[2];
        for (ApiCall c : calls) {
            // every operation ends after it is enqueued, so those ended by t were all enqueued before t
            long pending = countBefore(enqueued, c.startNs()) - countBefore(ended, c.startNs() + 1);
            if (pending >= limit) {
                out[0]++;
                out[1] += Math.min(c.endNs(), w.endNs()) - Math.max(c.startNs(), w.startNs());
            }
        }
        return out;
    }

    /** How many of the sorted values are below {@code t}. */
    private static int countBefore(long[] sorted, long t) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** A step function's maximum, time-weighted mean over the window and change points. */
    private record Step(long max, double mean, List<long[]> points) {
        static Step of(List<long[]> edges, Window w) {
            // ends before starts at the same instant, so back-to-back operations do not count twice
            edges.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
            List<long[]> points = new ArrayList<>();
            long length = 0;
            long max = 0;
            double weighted = 0;
            long last = w.startNs();
            for (long[] e : edges) {
                weighted += (double) length * (e[0] - last);
                last = e[0];
                length += e[1];
                max = Math.max(max, length);
                if (!points.isEmpty() && points.get(points.size() - 1)[0] == e[0]) {
                    points.get(points.size() - 1)[1] = length;
                } else {
                    points.add(new long[] {e[0], length});
                }
            }
            return new Step(max, w.lengthNs() == 0 ? 0 : weighted / w.lengthNs(), points);
        }
    }

    /**
     * The change points thinned to at most {@code maxPoints} for output: the window is cut into equal buckets and
     * each keeps its largest queue length (so peaks survive), at the bucket's first change time.
     */
    public List<long[]> series(int maxPoints) {
        if (changePoints.size() <= maxPoints) {
            return changePoints;
        }
        long from = changePoints.get(0)[0];
        long span = Math.max(1, changePoints.get(changePoints.size() - 1)[0] - from + 1);
        List<long[]> out = new ArrayList<>();
        long bucket = -1;
        for (long[] p : changePoints) {
            long b = (p[0] - from) * maxPoints / span;
            if (b != bucket) {
                out.add(new long[] {p[0], p[1]});
                bucket = b;
            } else {
                long[] last = out.get(out.size() - 1);
                last[1] = Math.max(last[1], p[1]);
            }
        }
        return out;
    }
}
