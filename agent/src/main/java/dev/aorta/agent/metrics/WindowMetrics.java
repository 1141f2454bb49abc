package dev.aorta.agent.metrics;

import java.util.List;

/**
 * The overlap numbers (docs/metrics.md) for one window W, from device activity: C compute, M communication, Y memcpy/memset.
 * All lengths in nanoseconds.
 */
public record WindowMetrics(long window, long compute, long comm, long memcpy, long busy, long overlap,
                            long computeAllReduce, long computeReduceScatter, long exposedMemcpy) {

    /** Computes the metrics of [from, to) from the classified activity intervals. */
    public static WindowMetrics of(long from, long to, List<long[]> compute, List<long[]> comm,
                                   List<long[]> allReduce, List<long[]> reduceScatter, List<long[]> memcpy) {
        long c = Intervals.unionLength(from, to, compute);
        long m = Intervals.unionLength(from, to, comm);
        long y = Intervals.unionLength(from, to, memcpy);
        long cm = Intervals.unionLength(from, to, compute, comm);
        long busy = Intervals.unionLength(from, to, compute, comm, memcpy);
        long overlap = c + m - cm;
        long car = c + Intervals.unionLength(from, to, allReduce) - Intervals.unionLength(from, to, compute, allReduce);
        long crs = c + Intervals.unionLength(from, to, reduceScatter)
                - Intervals.unionLength(from, to, compute, reduceScatter);
        return new WindowMetrics(to - from, c, m, y, busy, overlap, car, crs, busy - cm);
    }

    public long idle() {
        return window - busy;
    }

    public long exposedComm() {
        return comm - overlap;
    }

    /** 100·overlap/|M| (HTA's comp/comm overlap %); null without communication. */
    public Double commOverlapPct() {
        return comm == 0 ? null : 100.0 * overlap / comm;
    }

    /** overlap/|C| (AORTA's overlap_ratio, here from device activity); null without compute. */
    public Double aortaOverlapRatio() {
        return compute == 0 ? null : (double) overlap / compute;
    }
}
