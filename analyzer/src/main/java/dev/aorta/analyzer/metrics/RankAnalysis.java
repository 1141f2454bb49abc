package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.CriticalPath;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.core.metric.QueueSwitchOverhead;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinTask;

/** Runs every per-window analysis, built-in then plugin, over one rank's windows. */
public final class RankAnalysis {
    private RankAnalysis() {
    }

    public static List<WindowReport> analyze(RankTimeline t, AnalysisOptions options, List<String> warnings) {
        return analyze(t, options, warnings, new ArrayList<>());
    }

    /** @param coverage receives the rank's {@link StepCoverage} when its windows are steps */
    static List<WindowReport> analyze(RankTimeline t, AnalysisOptions options, List<String> warnings,
                                      List<StepCoverage> coverage) {
        CallsByCorrelation calls = LaunchLatency.callsByCorrelation(t);
        long[] enqueue = enqueueTimes(t, calls);
        // the breakdowns' inputs (the idle gaps, the calls in order of start, the critical-path graph) are the largest
        // part of a rank's set-up and need nothing else below: three tasks for the common pool meanwhile (a 17 MB
        // trace's analysis took 0.115 s, about half of it set-up on one thread). Three, not one: on 2 CPUs the pool has
        // one thread, and this one, done with its own part, runs those the pool has not started (join() does) instead
        // of waiting for all of them (a 780 MB trace's set-up waited 0.24-0.28 s for them as one task)
        ForkJoinTask<CriticalPath.Graph> graph = ForkJoinTask.adapt(() -> Breakdowns.Inputs.graph(t, calls)).fork();
        ForkJoinTask<IdleTimeBreakdown.Gaps> gaps = ForkJoinTask.adapt(() -> Breakdowns.Inputs.gaps(t, enqueue)).fork();
        ForkJoinTask<int[]> callsByStart = ForkJoinTask.adapt(() -> Breakdowns.Inputs.callsByStart(t)).fork();
        ClassIntervals unions = new ClassIntervals(t);
        DispatchLatency.PerActivity dispatch = DispatchLatency.perActivity(t.activities(), enqueue,
                i -> t.classOf(i) != ActivityClass.OTHER, t.dependencies());
        List<WindowReport> out = new ArrayList<>();
        List<Window> windows = WindowPlanner.windows(t, options.windows(), calls, warnings);
        StepCoverage steps = StepCoverage.of(t.rank(), unions, windows);
        // the last forked first: an external join runs a task that is still on top of the pool's queue, and the pool's
        // thread took the first forked (the graph, the largest)
        int[] sorted = callsByStart.join();
        IdleTimeBreakdown.Gaps idle = gaps.join();
        Breakdowns.Inputs breakdowns = new Breakdowns.Inputs(t, idle, sorted, calls, graph.join());
        if (steps != null) {
            coverage.add(steps);
        }
        // windows only read what the rank shares, so they are measured in parallel; a parallel stream keeps their
        // order, and each window's warnings follow those of the windows before it, as when measured one by one
        record Measured(WindowReport report, List<String> warnings) {
        }
        List<Measured> measured = windows.parallelStream().map(w -> {
            List<String> windowWarnings = new ArrayList<>();
            WindowReport report = new WindowReport(t.rank(), w, t.source(), OverlapMetrics.of(w.startNs(), w.endNs(),
                    unions.compute(), unions.communication(), unions.memory()),
                    LabelledStreamUtilization.of(t, unions, w), KernelBreakdown.of(t, unions, w, options.topKernels()),
                    QueueSwitchOverhead.of(WindowActivities.startingIn(t, unions, w)),
                    WindowActivities.dispatchLatency(t, unions, w, dispatch),
                    LaunchLatency.of(t, unions, w, calls), QueueLength.of(t, unions, w, calls),
                    t.jvmPauses().isEmpty() ? null : JvmAttribution.of(t, unions, w),
                    Breakdowns.of(t, unions, w, breakdowns, options.topKernels()),
                    options.analyses().measure(t, w, windowWarnings));
            return new Measured(report, windowWarnings);
        }).toList();
        for (Measured m : measured) {
            out.add(m.report());
            warnings.addAll(m.warnings());
        }
        return out;
    }

    /** Each activity's enqueue time: CUPTI's {@code queued} when the trace has it, else its launch call's start. */
    static long[] enqueueTimes(RankTimeline t, CallsByCorrelation calls) {
        long[] e = new long[t.activities().size()];
        for (int i = 0; i < e.length; i++) {
            long queued = t.queuedNs(i);
            int c = t.correlationId(i) == 0 ? -1 : calls.indexOf(t.correlationId(i));
            e[i] = queued != DeviceActivity.UNKNOWN && queued > 0 ? queued
                    : c < 0 ? DeviceActivity.UNKNOWN : calls.startNs(c);
        }
        return e;
    }
}
