package dev.aorta.analyzer.report;

import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowReport;

import java.nio.file.Path;
import java.util.List;

/** One labelled run of a report: its directory and its analysis. */
public record LabelRun(String label, Path logDir, TraceAnalysis analysis) {

    /** The per-iteration windows of all ranks (the whole trace when a run has no iterations). */
    public List<WindowReport> iterations() {
        List<WindowReport> steps = analysis.windows().stream().filter(w -> w.window().kind() == Window.Kind.STEP).toList();
        return steps.isEmpty() ? analysis.windows() : steps;
    }
}
