package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.interval.IntervalSet;

/**
 * The overlap quantities (docs/metrics.md) of one rank and window W, in integer nanoseconds. With C, M, Y the unions of
 * compute, communication and memory activities clipped to W:
 * <pre>
 * window_ns           = |W|
 * busy_ns             = |C ∪ M ∪ Y|
 * idle_ns             = |W| − busy
 * compute_ns          = |C|
 * comm_ns             = |M|
 * overlap_ns          = |C ∩ M|
 * exposed_comm_ns     = |M| − overlap
 * exposed_memcpy_ns   = |Y − C − M|
 * comm_overlap_pct    = 100 · overlap / |M|   (HTA's comp/comm overlap: share of communication hidden; 0 when M is empty)
 * aorta_overlap_ratio = overlap / |C|         (AORTA's overlap_ratio, from device activity; 0 when C is empty)
 * </pre>
 */
public record OverlapMetrics(long windowNs, long busyNs, long idleNs, long computeNs, long commNs, long overlapNs,
                             long exposedCommNs, long exposedMemcpyNs, double commOverlapPct,
                             double aortaOverlapRatio) {

    public static OverlapMetrics of(ClassIntervals unions, Window w) {
        IntervalSet c = unions.compute().clip(w.startNs(), w.endNs());
        IntervalSet m = unions.communication().clip(w.startNs(), w.endNs());
        IntervalSet y = unions.memory().clip(w.startNs(), w.endNs());
        return of(w.lengthNs(), c, m, y);
    }

    /** The metrics from unions already clipped to a window of length {@code windowNs}. */
    public static OverlapMetrics of(long windowNs, IntervalSet c, IntervalSet m, IntervalSet y) {
        IntervalSet cm = c.union(m);
        long busy = cm.union(y).length();
        long compute = c.length();
        long comm = m.length();
        long overlap = c.intersect(m).length();
        long exposedMemcpy = y.minus(cm).length();
        return new OverlapMetrics(windowNs, busy, windowNs - busy, compute, comm, overlap, comm - overlap,
                exposedMemcpy, comm == 0 ? 0 : 100.0 * overlap / comm, compute == 0 ? 0 : (double) overlap / compute);
    }
}
