package dev.aorta.workloads.comm;

import dev.aorta.analyzer.interval.IntervalSet;
import dev.aorta.analyzer.metrics.OverlapMetrics;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.workloads.harness.RunResult;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The overlap metrics (docs/metrics.md) on one harness run of comms_compute_overlap, from its device timestamps (the analyzer's
 * {@link OverlapMetrics}): per captured iteration W = [first activity start, last activity end], C = U(compute
 * kernels), M = U(communication: names matching {@link CommsComputeOverlap#COMMUNICATION}), Y = U(copies and
 * memsets); the ns values are means per iteration, the percentages are pooled over all iterations
 * (100·Σoverlap/Σcomm), so a few short iterations cannot dominate them.
 *
 * @param collectiveTimeNs mean device time of one collective: Σ durations of communication activities over
 *                         (iterations × collectives per iteration)
 */
public record OverlapAnalysis(int iterations, double windowNs, double computeNs, double commNs, double overlapNs,
                              double exposedCommNs, double idleNs, double commOverlapPct, double aortaOverlapRatio,
                              double collectiveTimeNs, int commActivities, int computeActivities) {

    public static OverlapAnalysis of(RunResult run, int collectivesPerIteration, Pattern communication) {
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
                if (a.kind() == ActivityKind.MEMCPY || a.kind() == ActivityKind.MEMSET) {
                    ys[ny] = a.startNs();
                    ye[ny++] = a.endNs();
                } else if (a.kind() == ActivityKind.COLLECTIVE || communication.matcher(a.name()).find()) {
                    ms[nm] = a.startNs();
                    me[nm++] = a.endNs();
                    commDurations += a.endNs() - a.startNs();
                } else {
                    cs[nc] = a.startNs();
                    ce[nc++] = a.endNs();
                }
            }
            commCount += nm;
            computeCount += nc;
            OverlapMetrics m = OverlapMetrics.of(end - start, IntervalSet.union(cs, ce, nc),
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
                idle / it, comm == 0 ? 0 : 100.0 * overlap / comm, compute == 0 ? 0 : (double) overlap / compute,
                commCount == 0 ? Double.NaN : (double) commDurations / (it * collectivesPerIteration), commCount,
                computeCount);
    }

    /** algbw in GB/s (10⁹ bytes per second) for a collective of {@code bytes}: bytes / collective time. */
    public double algbwGbps(long bytes) {
        return bytes / collectiveTimeNs;
    }
}
