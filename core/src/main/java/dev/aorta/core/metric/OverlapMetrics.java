package dev.aorta.core.metric;

/**
 * The overlap quantities (docs/metrics.md#overlap-of-one-window) of one rank and window W, in integer nanoseconds.
 * With C, M, Y the unions of compute, communication and memory activities clipped to W:
 * <pre>
 * window_ns           = |W|
 * busy_ns             = |C ∪ M ∪ Y|
 * idle_ns             = |W| − busy
 * compute_ns          = |C|
 * comm_ns             = |M|
 * memory_ns           = |Y|                   (the agent's memcpy_ms)
 * overlap_ns          = |C ∩ M|
 * exposed_comm_ns     = |M| − overlap
 * exposed_memcpy_ns   = |Y − C − M|
 * comm_overlap_pct    = 100 · overlap / |M|   (HTA's comp/comm overlap: share of communication hidden)
 * aorta_overlap_ratio = overlap / |C|         (AORTA's overlap_ratio, from device activity)
 * </pre>
 * Without communication {@code comm_overlap_pct} is undefined ({@code null}), not 0: 0 % would claim that
 * communication ran fully exposed. Likewise {@code aorta_overlap_ratio} without compute. Every writer shows
 * undefined the same way: JSON {@code null}, text {@code n/a}.
 */
public record OverlapMetrics(long windowNs, long busyNs, long idleNs, long computeNs, long commNs, long memoryNs,
                             long overlapNs,
                             long exposedCommNs, long exposedMemcpyNs) {

    /** The metrics of W = [from, to) from unions of any extent (clipped here). */
    public static OverlapMetrics of(long from, long to, IntervalSet compute, IntervalSet comm, IntervalSet memory) {
        return of(to - from, compute.clip(from, to), comm.clip(from, to), memory.clip(from, to));
    }

    /** The metrics from unions already clipped to a window of length {@code windowNs}. */
    public static OverlapMetrics of(long windowNs, IntervalSet c, IntervalSet m, IntervalSet y) {
        IntervalSet cm = c.union(m);
        long busy = cm.union(y).length();
        long compute = c.length();
        long comm = m.length();
        long overlap = c.intersect(m).length();
        return new OverlapMetrics(windowNs, busy, windowNs - busy, compute, comm, y.length(), overlap,
                comm - overlap, y.minus(cm).length());
    }

    /** 100 · overlap / |M|; null without communication. */
    public Double commOverlapPct() {
        return pct(overlapNs, commNs);
    }

    /** overlap / |C|; null without compute. */
    public Double aortaOverlapRatio() {
        return ratio(overlapNs, computeNs);
    }

    /** 100 · overlap / comm, null when comm is 0: the one rule, also for sums over iterations (pooled). */
    public static Double pct(double overlap, double comm) {
        return comm == 0 ? null : 100.0 * overlap / comm;
    }

    /** overlap / compute, null when compute is 0. */
    public static Double ratio(double overlap, double compute) {
        return compute == 0 ? null : overlap / compute;
    }
}
