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
 * points (time, length) for plotting.
 */
public record QueueLength(String basis, long max, double timeWeightedMean, List<long[]> changePoints) {

    public static QueueLength of(RankTimeline t, ClassIntervals unions, Window w, Map<Long, ApiCall> calls) {
        List<long[]> edges = new ArrayList<>(); // {time, +1/-1}
        boolean anyEnqueue = false;
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (!WindowActivities.overlaps(a, w) || t.classOf(i) == ActivityClass.OTHER) {
                continue;
            }
            long from = a.startNs();
            ApiCall c = a.correlationId() == 0 || calls.isEmpty() ? null : calls.get(a.correlationId());
            if (a.queuedNs() > 0) {
                from = Math.min(from, a.queuedNs());
                anyEnqueue = true;
            } else if (c != null) {
                from = Math.min(from, c.startNs());
                anyEnqueue = true;
            }
            edges.add(new long[] {Math.max(from, w.startNs()), 1});
            edges.add(new long[] {Math.min(a.endNs(), w.endNs()), -1});
        }
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
        return new QueueLength(anyEnqueue ? "enqueue" : "running", max,
                w.lengthNs() == 0 ? 0 : weighted / w.lengthNs(), points);
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
