package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs every per-window analysis, built-in then plugin, over one rank's windows. */
public final class RankAnalysis {
    private RankAnalysis() {
    }

    public static List<WindowReport> analyze(RankTimeline t, AnalysisOptions options, List<String> warnings) {
        ClassIntervals unions = new ClassIntervals(t);
        Map<Long, ApiCall> calls = LaunchLatency.callsByCorrelation(t);
        DispatchLatency.PerActivity dispatch = DispatchLatency.perActivity(t, calls);
        List<WindowReport> out = new ArrayList<>();
        for (Window w : WindowPlanner.windows(t, options.windows(), warnings)) {
            out.add(new WindowReport(t.rank(), w, t.source(), OverlapMetrics.of(unions, w),
                    StreamUtilization.of(t, unions, w), KernelBreakdown.of(t, unions, w, options.topKernels()),
                    QueueSwitchOverhead.of(t, unions, w), DispatchLatency.of(t, unions, w, dispatch),
                    LaunchLatency.of(t, unions, w, calls), QueueLength.of(t, unions, w, calls),
                    t.jvmPauses().isEmpty() ? null : JvmAttribution.of(t, unions, w),
                    options.analyses().measure(t, w, warnings)));
        }
        return out;
    }
}
