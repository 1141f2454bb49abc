package dev.aorta.core.metric;

/**
 * Per-stream utilization (docs/metrics.md#per-stream-utilization) of one stream in a window W = [from, to):
 * <pre>
 * busy_ns     = |U(the stream's activities) ∩ W|
 * utilization = busy / |W|      (a fraction; 0 for an empty window)
 * </pre>
 */
public record StreamUtilization(long busyNs, double utilization) {

    /** From the union of the stream's activities, of any extent (only its part in W counts). */
    public static StreamUtilization of(IntervalSet stream, long from, long to) {
        long busy = stream.lengthWithin(from, to);
        return new StreamUtilization(busy, to > from ? (double) busy / (to - from) : 0);
    }
}
