package dev.aorta.analyzer.report;

import dev.aorta.analyzer.metrics.Breakdowns;
import dev.aorta.analyzer.metrics.ClassIntervals;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowPlanner;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowReport;

import java.nio.file.Path;
import java.util.List;

/** One labelled run of a report: its directory and its analysis. */
public record LabelRun(String label, Path logDir, TraceAnalysis analysis) {

    /** The kernel breakdown of the whole trace of each rank (top 10 names per class). */
    public List<WindowReport.RankKernels> topKernels() {
        return analysis.timelines().stream().map(t -> new WindowReport.RankKernels(t.rank(),
                KernelBreakdown.of(t, new ClassIntervals(t), WindowPlanner.whole(t), 10))).toList();
    }

    /** The idle time, API calls, kernel launches and copy bandwidth of the whole trace of each rank (top 10 call names). */
    public List<RankBreakdowns> wholeTraceBreakdowns() {
        return analysis.timelines().stream().map(t -> new RankBreakdowns(t.rank(), Breakdowns.wholeTrace(t, 10))).toList();
    }

    /** A rank's whole-trace {@link Breakdowns}. */
    public record RankBreakdowns(int rank, Breakdowns breakdowns) {
    }

    /** The per-iteration windows of all ranks (the whole trace when a run has no iterations). */
    public List<WindowReport> iterations() {
        List<WindowReport> steps = analysis.windows().stream().filter(w -> w.window().kind() == Window.Kind.STEP).toList();
        return steps.isEmpty() ? analysis.windows() : steps;
    }
}
