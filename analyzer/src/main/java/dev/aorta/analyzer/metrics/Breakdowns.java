package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.CopyBandwidth;
import dev.aorta.core.metric.CriticalPath;
import dev.aorta.core.metric.GemmThroughput;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.KernelLaunchStatistics;
import dev.aorta.core.metric.StableOrder;

import java.util.ArrayList;
import java.util.List;

/**
 * The breakdowns users of HTA and TraceLens expect, of one window (docs/metrics.md): idle time per stream by cause,
 * the CUDA/HIP API calls by name (top N by total time), kernel launch statistics, memory-copy bandwidth per
 * direction, collective bandwidth per collective kind and size, GEMM throughput per shape, and the critical path of
 * the window's last device work. Each is a {@code dev.aorta.core.metric} class; this one only selects a window's part of a timeline: the
 * idle gaps clipped to it, the API calls starting in it (all of them for the whole trace, whose window is the span of
 * device activity) and the device activities starting in it.
 *
 * @param apiCallNames how many API call names there were in all (the list holds the top N)
 * @param collectives  the communication activities starting in the window, by collective kind, size and group
 * @param gemms        the GEMM ops whose kernels start in the window, by shape (top N by device time)
 * @param criticalPath to the end of the last activity starting in the window, walked back to the window's start (a
 *                     step's host start when earlier); null without activities
 */
public record Breakdowns(List<StreamIdle> idle, List<ApiStatistics.Entry> apiCalls, int apiCallNames,
                         KernelLaunchStatistics launches, List<CopyBandwidth> copies,
                         List<CollectiveBandwidth> collectives, List<GemmThroughput> gemms,
                         CriticalPath criticalPath) {

    /** A stream's idle-time breakdown with the stream's label (its role when the trace names one, else its id). */
    public record StreamIdle(String label, IdleTimeBreakdown breakdown) {
    }

    /** What every window of a timeline shares, computed once: the idle gaps and the API calls sorted by start. */
    static final class Inputs {
        private final IdleTimeBreakdown.Gaps gaps;
        private final ApiCallColumns calls;
        /** The calls' indices in order of start. */
        private final int[] callsByStart;
        private final CallsByCorrelation callsByCorrelation;
        private final CriticalPath.Graph graph;

        Inputs(RankTimeline t, long[] enqueueNs, CallsByCorrelation callsByCorrelation) {
            this(t, gaps(t, enqueueNs), callsByStart(t), callsByCorrelation, graph(t, callsByCorrelation));
        }

        /** From parts built apart ({@link RankAnalysis} builds them in tasks of their own). */
        Inputs(RankTimeline t, IdleTimeBreakdown.Gaps gaps, int[] callsByStart, CallsByCorrelation callsByCorrelation,
               CriticalPath.Graph graph) {
            this.gaps = gaps;
            this.calls = t.apiCalls();
            this.callsByStart = callsByStart;
            this.callsByCorrelation = callsByCorrelation;
            this.graph = graph;
        }

        static IdleTimeBreakdown.Gaps gaps(RankTimeline t, long[] enqueueNs) {
            return IdleTimeBreakdown.gaps(t.activities(), enqueueNs, i -> t.classOf(i) != ActivityClass.OTHER,
                    IdleTimeBreakdown.DEFAULT_KERNEL_WAIT_THRESHOLD_NS);
        }

        static int[] callsByStart(RankTimeline t) {
            ApiCallColumns calls = t.apiCalls();
            return StableOrder.byKey(calls.size(), calls::startNs);
        }

        static CriticalPath.Graph graph(RankTimeline t, CallsByCorrelation callsByCorrelation) {
            int[] launchOf = new int[t.activities().size()];
            for (int i = 0; i < launchOf.length; i++) {
                long c = t.correlationId(i);
                launchOf[i] = c == 0 ? -1 : callsByCorrelation.indexOf(c);
            }
            return new CriticalPath.Graph(t.activities(), i -> t.classOf(i) != ActivityClass.OTHER, launchOf,
                    t.apiCalls(), t.dependencies());
        }

        /** The API statistics of the calls whose positions in start order are [from, to). */
        private List<ApiStatistics.Entry> apiStatistics(int from, int to) {
            return ApiStatistics.byName(to - from, k -> calls.name(callsByStart[from + k]),
                    k -> calls.startNs(callsByStart[from + k]), k -> calls.endNs(callsByStart[from + k]));
        }

        /** The position in start order of the first call starting at or after {@code ns}, by binary search. */
        private int firstAtOrAfter(long ns) {
            int lo = 0;
            int hi = callsByStart.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (calls.startNs(callsByStart[mid]) < ns) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /** The breakdowns of a rank's whole trace (for reports, whatever windows were measured). */
    public static Breakdowns wholeTrace(RankTimeline t, int topNames) {
        CallsByCorrelation calls = LaunchLatency.callsByCorrelation(t);
        return of(t, new ClassIntervals(t), WindowPlanner.whole(t),
                new Inputs(t, RankAnalysis.enqueueTimes(t, calls), calls), topNames);
    }

    static Breakdowns of(RankTimeline t, ClassIntervals unions, Window w, Inputs in, int topNames) {
        List<StreamIdle> idle = IdleTimeBreakdown.perStream(in.gaps, w.startNs(), w.endNs()).stream()
                .map(b -> new StreamIdle(t.streamLabel(b.stream()), b)).toList();
        // the whole trace spans the device's activity; the host calls before the first kernel belong to it too
        List<ApiStatistics.Entry> calls = w.kind() == Window.Kind.WHOLE ? in.apiStatistics(0, in.callsByStart.length)
                : in.apiStatistics(in.firstAtOrAfter(w.startNs()), in.firstAtOrAfter(w.endNs()));
        List<DeviceActivity> activities = WindowActivities.startingIn(t, unions, w);
        KernelLaunchStatistics.Builder launches = new KernelLaunchStatistics.Builder(
                KernelLaunchStatistics.DEFAULT_RUNTIME_CUTOFF_NS, KernelLaunchStatistics.DEFAULT_LAUNCH_DELAY_CUTOFF_NS);
        List<CollectiveBandwidth.Call> collectives = new ArrayList<>();
        int last = -1;
        int n = t.activities().size();
        for (int i = WindowActivities.first(t, unions, w); i < n && t.startNs(i) < w.endNs(); i++) {
            if (t.startNs(i) < w.startNs()) {  // before the loop's end: starts in the window unless this
                continue;
            }
            int c = t.correlationId(i) == 0 ? -1 : in.callsByCorrelation.indexOf(t.correlationId(i));
            if (c >= 0) {
                launches.add(t.startNs(i), t.endNs(i), in.callsByCorrelation.startNs(c), in.callsByCorrelation.endNs(c));
            }
            if (t.classOf(i) == ActivityClass.COMMUNICATION) {
                collectives.add(LaunchedOps.collective(t, t.activities().get(i),
                        c < 0 ? null : in.callsByCorrelation.call(c)));
            }
            if (t.classOf(i) != ActivityClass.OTHER && (last < 0 || t.endNs(i) > t.endNs(last))) {
                last = i;
            }
        }
        long lowerBound = w.kind() == Window.Kind.STEP ? Math.min(w.startNs(), w.hostStartNs()) : w.startNs();
        return new Breakdowns(idle, calls.stream().limit(topNames).toList(), calls.size(), launches.build(),
                CopyBandwidth.byDirection(activities), CollectiveBandwidth.of(collectives),
                GemmThroughput.byShape(LaunchedOps.gemms(activities, in.callsByCorrelation)).stream()
                        .limit(topNames).toList(), last < 0 ? null : CriticalPath.of(in.graph, last, lowerBound));
    }
}
