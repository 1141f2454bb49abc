package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
        // read from the timeline's columns, no record built: the operations' clipped (up, down) edges for the step
        // functions, and per stream also the unclipped spans and launch calls for the blocked count
        Edges all = new Edges();
        Map<Long, Edges> byStream = new TreeMap<>();
        boolean anyEnqueue = false;
        int n = t.activities().size();
        for (int i = WindowActivities.first(t, unions, w); i < n && t.startNs(i) < w.endNs(); i++) {
            if (t.endNs(i) <= w.startNs() || t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long from = t.startNs(i);
            long end = t.endNs(i);
            long correlation = t.correlationId(i);
            int call = correlation == 0 || calls.isEmpty() ? -1 : calls.indexOf(correlation);
            long queued = t.queuedNs(i);
            if (queued > 0) {
                from = Math.min(from, queued);
                anyEnqueue = true;
            } else if (call >= 0) {
                from = Math.min(from, calls.startNs(call));
                anyEnqueue = true;
            }
            long up = Math.max(from, w.startNs());
            long down = Math.min(end, w.endNs());
            all.add(up, down);
            Edges stream = byStream.computeIfAbsent(t.stream(i), x -> new Edges());
            stream.add(up, down);
            stream.span(from, end);
            if (call >= 0 && calls.endNs(call) > w.startNs() && calls.startNs(call) < w.endNs()) {
                stream.call(call);
            }
        }
        List<StreamQueue> streams = new ArrayList<>();
        for (Map.Entry<Long, Edges> e : byStream.entrySet()) {
            Step step = Step.of(e.getValue(), w, false);
            long[] blocked = anyEnqueue ? blocked(e.getValue(), calls, w, limit) : new long[2];
            streams.add(new StreamQueue(e.getKey(), t.streamLabel(e.getKey()), step.max, step.mean, blocked[0],
                    blocked[1]));
        }
        Step whole = Step.of(all, w, true);
        return new QueueLength(anyEnqueue ? "enqueue" : "running", whole.max, whole.mean, whole.points, streams);
    }

    /**
     * Operations as primitive columns: each one's edges clipped to the window (up at its enqueue or start, down at its
     * end) and, for a stream, its unclipped span and the launch calls (indices into the rank's calls) overlapping the
     * window, each call once however many operations it launched.
     */
    private static final class Edges {
        long[] ups = new long[16];
        long[] downs = new long[16];
        long[] enqueued = new long[0];
        long[] ended = new long[0];
        int[] calls = new int[0];
        int size;
        int spans;
        int callCount;

        void add(long up, long down) {
            if (size == ups.length) {
                ups = Arrays.copyOf(ups, size * 2);
                downs = Arrays.copyOf(downs, size * 2);
            }
            ups[size] = up;
            downs[size++] = down;
        }

        void span(long from, long end) {
            if (spans == enqueued.length) {
                enqueued = Arrays.copyOf(enqueued, Math.max(16, spans * 2));
                ended = Arrays.copyOf(ended, Math.max(16, spans * 2));
            }
            enqueued[spans] = from;
            ended[spans++] = end;
        }

        void call(int index) {
            if (callCount == calls.length) {
                calls = Arrays.copyOf(calls, Math.max(16, callCount * 2));
            }
            calls[callCount++] = index;
        }
    }

    /** {calls, ns}: the launch calls that started while ≥ limit of the stream's operations were pending. */
    private static long[] blocked(Edges stream, CallsByCorrelation calls, Window w, int limit) {
        long[] enqueued = Arrays.copyOf(stream.enqueued, stream.spans);
        long[] ended = Arrays.copyOf(stream.ended, stream.spans);
        Arrays.sort(enqueued);
        Arrays.sort(ended);
        int[] launches = Arrays.copyOf(stream.calls, stream.callCount);
        Arrays.sort(launches);
        long[] out = new long[2];
        for (int k = 0; k < launches.length; k++) {
            if (k > 0 && launches[k] == launches[k - 1]) {
                continue;  // one call, several operations: counted once
            }
            long start = calls.startNs(launches[k]);
            // every operation ends after it is enqueued, so those ended by t were all enqueued before t
            long pending = countBefore(enqueued, start) - countBefore(ended, start + 1);
            if (pending >= limit) {
                out[0]++;
                out[1] += Math.min(calls.endNs(launches[k]), w.endNs()) - Math.max(start, w.startNs());
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

    /** A step function's maximum, time-weighted mean over the window and (when asked for) change points. */
    private record Step(long max, double mean, List<long[]> points) {
        static Step of(Edges edges, Window w, boolean withPoints) {
            long[] ups = Arrays.copyOf(edges.ups, edges.size);
            long[] downs = Arrays.copyOf(edges.downs, edges.size);
            Arrays.sort(ups);
            Arrays.sort(downs);
            List<long[]> points = new ArrayList<>();
            long length = 0;
            long max = 0;
            double weighted = 0;
            long last = w.startNs();
            long lastPoint = Long.MIN_VALUE;
            // the edges merged in time order, ends before starts at the same instant, so back-to-back operations do
            // not count twice
            for (int u = 0, d = 0; u < ups.length || d < downs.length; ) {
                boolean down = u == ups.length || (d < downs.length && downs[d] <= ups[u]);
                long at = down ? downs[d++] : ups[u++];
                weighted += (double) length * (at - last);
                last = at;
                length += down ? -1 : 1;
                max = Math.max(max, length);
                if (withPoints) {
                    if (at == lastPoint) {
                        points.get(points.size() - 1)[1] = length;
                    } else {
                        points.add(new long[] {at, length});
                        lastPoint = at;
                    }
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
