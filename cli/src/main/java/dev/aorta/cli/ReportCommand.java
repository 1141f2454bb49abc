package dev.aorta.cli;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.io.AtomicFiles;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.report.Aggregate;
import dev.aorta.analyzer.report.AortaReportSection;
import dev.aorta.analyzer.report.HtmlReport;
import dev.aorta.analyzer.report.LabelRun;
import dev.aorta.analyzer.report.Metric;
import dev.aorta.analyzer.report.OverlapReport;
import dev.aorta.analyzer.report.Plots;
import dev.aorta.analyzer.report.StreamSelection;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.metric.TrainerRunSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code aorta report}: compare labelled runs (any trace directories) and write summary.json, PNGs and report.html. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Compare runs: each --log-dir (any traces the analyzer reads) with its --label. Writes"
                + " summary.json, {label}_timeline.png, {label}_gantt.png and a self-contained report.html into --output.",
                "Directories of rank_*_metrics.jsonl also get AORTA's own report blocks (datasets, comparison) with its"
                        + " definitions."})
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
        OverlapReport report = new OverlapReport(runs, ref, cands, aortaSection());
        report.aortaSection().warnings().forEach(w -> spec.commandLine().getErr().println("aorta report: warning: " + w));
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
        printAortaSection(report);
        spec.commandLine().getOut().println("wrote " + output.resolve("summary.json") + ", " + plots.size() + " plots and "
                + output.resolve("report.html"));
        return 0;
    }

    /**
     * AORTA's report blocks, for the labels whose directories hold rank_*_metrics.jsonl. Its comparison compares one
     * pair, so it is written when --reference and a single --candidate are given, as AORTA's script takes them.
     */
    private AortaReportSection aortaSection() throws IOException {
        Map<String, Path> dirs = new LinkedHashMap<>();
        for (int i = 0; i < labels.size(); i++) {
            dirs.put(labels.get(i), logDirs.get(i));
        }
        boolean onePair = reference != null && candidates != null && candidates.size() == 1;
        AortaReportSection section = AortaReportSection.of(dirs, onePair ? reference : null,
                onePair ? candidates.get(0) : null);
        if (section.present() && reference != null && candidates != null && candidates.size() > 1) {
            spec.commandLine().getErr().println("aorta report: warning: AORTA's comparison block (overlap_ratio of"
                    + " one candidate against the reference) is left out: it compares one --candidate, got "
                    + candidates.size());
        }
        return section;
    }

    private void printAortaSection(OverlapReport report) {
        AortaReportSection section = report.aortaSection();
        PrintWriter out = spec.commandLine().getOut();
        for (Map.Entry<String, TrainerRunSummary> e : section.datasets().entrySet()) {
            TrainerRunSummary s = e.getValue();
            if (s.count() == 0) {
                out.printf(Locale.ROOT, "%s: no rank_*_metrics.jsonl steps%n", e.getKey());
                continue;
            }
            Aggregate perStep = report.aggregates(report.run(e.getKey())).get(Metric.AORTA_OVERLAP_RATIO);
            out.printf(Locale.ROOT, "%s: %d steps, mean loss %s, mean compute %.3f ms, mean overlap %.3f ms"
                            + " (allreduce %.3f, reducescatter %.3f), overlap_ratio %.4f (AORTA's: mean overlap / mean"
                            + " compute); aorta_overlap_ratio mean of per-step ratios %s%n",
                    e.getKey(), s.count(), Double.isNaN(s.meanLoss()) ? "n/a" : String.format(Locale.ROOT, "%.6f",
                            s.meanLoss()), s.meanComputeMs(), s.meanOverlapMs(), s.meanAllreduceOverlapMs(),
                    s.meanReducescatterOverlapMs(), s.overlapRatio(),
                    perStep.count() == 0 ? "n/a" : String.format(Locale.ROOT, "%.4f", perStep.mean()));
        }
        TrainerRunSummary.Comparison c = section.comparison();
        if (c != null) {
            out.printf(Locale.ROOT, "comparison: overlap_ratio %s %.4f, %s %.4f, ratio_delta %+.4f%n",
                    section.reference(), c.referenceOverlapRatio(), section.candidate(), c.candidateOverlapRatio(),
                    c.ratioDelta());
        }
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
