package dev.aorta.cli;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.io.AtomicFiles;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.report.HtmlReport;
import dev.aorta.analyzer.report.LabelRun;
import dev.aorta.analyzer.report.OverlapReport;
import dev.aorta.analyzer.report.Plots;
import dev.aorta.analyzer.report.StreamSelection;
import dev.aorta.analyzer.trace.TraceLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code aorta report}: compare labelled runs (any trace directories) and write summary.json, PNGs and report.html. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Compare runs: each --log-dir (any traces the analyzer reads) with its --label. Writes"
                + " summary.json, {label}_timeline.png, {label}_gantt.png and a self-contained report.html into --output."})
public final class ReportCommand implements Callable<Integer> {
    @Option(names = "--log-dir", required = true, paramLabel = "DIR", description = "A run's trace directory (repeat).")
    List<Path> logDirs;

    @Option(names = "--label", required = true, paramLabel = "LABEL", description = "The label of the --log-dir at the same position.")
    List<String> labels;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Where to write the report.")
    Path output;

    @Option(names = "--reference", paramLabel = "LABEL", description = "The baseline label (default: the first).")
    String reference;

    @Option(names = "--candidate", paramLabel = "LABEL", description = "The label compared with the reference (default: every other label).")
    List<String> candidates;

    @Option(names = "--gantt-step", paramLabel = "N", description = "Iteration drawn in the Gantt charts (default: the median-length iteration of rank 0).")
    Long ganttStep;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Mixin
    ClassifierOptions classes = new ClassifierOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (ModuleLayer.boot().findModule("java.desktop").isEmpty()) {
            // JFreeChart draws the PNG plots with AWT (headless); a jlinked runtime may leave it out
            throw new IllegalStateException("aorta report draws its plots with java.desktop (AWT, headless), which the "
                    + "Java runtime at " + System.getProperty("java.home") + " does not include; run it with a full JDK "
                    + "or a runtime linked with java.desktop (scripts/pack-device.sh makes one)");
        }
        if (logDirs.size() != labels.size()) {
            throw new IllegalArgumentException("--log-dir and --label must come in pairs: got " + logDirs.size()
                    + " directories and " + labels.size() + " labels");
        }
        for (String label : labels) {
            if (!label.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("--label '" + label + "': use letters, digits, '.', '_' or '-' only"
                        + " (it names output files)");
            }
        }
        if (labels.stream().distinct().count() != labels.size()) {
            throw new IllegalArgumentException("--label: every label must be different, got " + labels);
        }
        List<LabelRun> runs = new ArrayList<>();
        for (int i = 0; i < logDirs.size(); i++) {
            if (!Files.isDirectory(logDirs.get(i))) {
                throw new IllegalArgumentException("--log-dir " + logDirs.get(i) + ": not a directory");
            }
            TraceAnalysis analysis = TraceAnalysis.of(TraceLoader.withInstalledReaders().load(List.of(logDirs.get(i))),
                    new AnalysisOptions(WindowMode.STEPS, classes.classifier(), 10));
            analysis.warnings().forEach(w -> spec.commandLine().getErr().println("aorta report: warning: " + w));
            runs.add(new LabelRun(labels.get(i), logDirs.get(i), analysis));
        }
        String ref = reference == null ? labels.get(0) : reference;
        List<String> cands = candidates != null ? candidates
                : labels.stream().filter(l -> !l.equals(ref)).toList();
        for (String l : cands) {
            if (!labels.contains(l)) {
                throw new IllegalArgumentException("--candidate " + l + ": no --label " + l);
            }
        }
        if (!labels.contains(ref)) {
            throw new IllegalArgumentException("--reference " + ref + ": no --label " + ref);
        }
        OverlapReport report = new OverlapReport(runs, ref, cands);
        Map<String, byte[]> plots = new LinkedHashMap<>();
        for (LabelRun run : runs) {
            plots.put(run.label() + "_timeline.png", Plots.timeline(run.label(), run.iterations()));
            WindowReport chosen = ganttWindow(run);
            if (chosen != null) {
                RankTimeline t = run.analysis().timelines().stream().filter(x -> x.rank() == chosen.rank())
                        .findFirst().orElseThrow();
                plots.put(run.label() + "_gantt.png", Plots.gantt(run.label() + ": rank " + chosen.rank() + ", "
                        + chosen.window().label(), t, chosen.window(),
                        StreamSelection.busiest(chosen.streams(), StreamSelection.DEFAULT_CAP)));
            }
        }
        // the set as a whole: a report killed half-way leaves the old set, never a new summary beside old plots
        AtomicFiles.writeFolder(output, "summary.json", folder -> {
            for (Map.Entry<String, byte[]> plot : plots.entrySet()) {
                Files.write(folder.resolve(plot.getKey()), plot.getValue());
            }
            try (OutputStream html = Files.newOutputStream(folder.resolve("report.html"))) {
                HtmlReport.write(report, plots, html);
            }
            try (OutputStream summary = Files.newOutputStream(folder.resolve("summary.json"))) {
                report.writeSummaryJson(summary);
            }
        });
        spec.commandLine().getOut().println("wrote " + output.resolve("summary.json") + ", " + plots.size() + " plots and "
                + output.resolve("report.html"));
        return 0;
    }

    private WindowReport ganttWindow(LabelRun run) {
        List<WindowReport> iterations = run.iterations();
        if (iterations.isEmpty()) {
            return null;
        }
        int firstRank = iterations.get(0).rank();
        List<WindowReport> rank0 = iterations.stream().filter(r -> r.rank() == firstRank).toList();
        if (ganttStep != null) {
            return rank0.stream().filter(r -> r.window().step() == ganttStep).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--gantt-step " + ganttStep + ": no such iteration in "
                            + run.logDir()));
        }
        List<WindowReport> sorted = new ArrayList<>(rank0);
        sorted.sort(Comparator.comparingLong(r -> r.window().lengthNs()));
        return sorted.get(sorted.size() / 2);
    }
}
