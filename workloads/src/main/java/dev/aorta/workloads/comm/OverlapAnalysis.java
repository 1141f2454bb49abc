package dev.aorta.workloads.comm;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.workloads.harness.RunResult;

import java.util.List;

/**
 * The overlap metrics ({@link OverlapMetrics}, docs/metrics.md) on one harness run of comms_compute_overlap, from its
 * device timestamps: per captured iteration W = [first activity start, last activity end], C, M and Y the unions of
 * the activities {@link ActivityClassifier} puts in compute, communication and memory; the ns values are means per
 * iteration, the percentages are pooled over all iterations (100·Σoverlap/Σcomm), so a few short iterations cannot
 * dominate them. {@code commOverlapPct} is null without communication, {@code aortaOverlapRatio} without compute.
 *
 * @param collectiveTimeNs mean device time of one collective: Σ durations of communication activities over
 *                         (iterations × collectives per iteration)
 */
public record OverlapAnalysis(int iterations, double windowNs, double computeNs, double commNs, double overlapNs,
                              double exposedCommNs, double idleNs, Double commOverlapPct, Double aortaOverlapRatio,
                              double collectiveTimeNs, int commActivities, int computeActivities) {

    public static OverlapAnalysis of(RunResult run, int collectivesPerIteration, ActivityClassifier classifier) {
        List<List<DeviceActivity>> windows = run.activities();
        int iterations = Math.max(1, run.kernelTiming().capturedIterations());
        long window = 0, compute = 0, comm = 0, overlap = 0, exposed = 0, idle = 0;
        long commDurations = 0;
        int commCount = 0, computeCount = 0;
        for (List<DeviceActivity> w : windows) {
            if (w.isEmpty()) {
                continue;
            }
            int n = w.size();
            long[] cs = new long[n], ce = new long[n], ms = new long[n], me = new long[n], ys = new long[n], ye = new long[n];
            int nc = 0, nm = 0, ny = 0;
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
            for (DeviceActivity a : w) {
                start = Math.min(start, a.startNs());
                end = Math.max(end, a.endNs());
                switch (classifier.classify(a)) {
                    case MEMORY -> {
                        ys[ny] = a.startNs();
                        ye[ny++] = a.endNs();
                    }
                    case COMMUNICATION -> {
                        ms[nm] = a.startNs();
                        me[nm++] = a.endNs();
                        commDurations += a.endNs() - a.startNs();
                    }
                    case COMPUTE -> {
                        cs[nc] = a.startNs();
                        ce[nc++] = a.endNs();
                    }
                    case OTHER -> {
                        // in no class (docs/metrics.md#classification)
                    }
                }
            }
            commCount += nm;
            computeCount += nc;
            OverlapMetrics m = OverlapMetrics.of(start, end, IntervalSet.union(cs, ce, nc),
                    IntervalSet.union(ms, me, nm), IntervalSet.union(ys, ye, ny));
            window += m.windowNs();
            compute += m.computeNs();
            comm += m.commNs();
            overlap += m.overlapNs();
            exposed += m.exposedCommNs();
            idle += m.idleNs();
        }
        double it = iterations;
        return new OverlapAnalysis(iterations, window / it, compute / it, comm / it, overlap / it, exposed / it,
                idle / it, OverlapMetrics.pct(overlap, comm), OverlapMetrics.ratio(overlap, compute),
                commCount == 0 ? Double.NaN : (double) commDurations / (it * collectivesPerIteration), commCount,
                computeCount);
    }

    /** algbw in GB/s (10⁹ bytes per second) for a collective of {@code bytes}: bytes / collective time. */
    public double algbwGbps(long bytes) {
        return bytes / collectiveTimeNs;
    }
}
