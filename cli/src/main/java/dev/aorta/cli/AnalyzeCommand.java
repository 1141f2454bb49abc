package dev.aorta.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.AnalysisResult;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.metrics.LabelledStreamUtilization;
import dev.aorta.core.metric.CollectiveSkew;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.analyzer.metrics.StepCoverage;
import dev.aorta.analyzer.metrics.Stragglers;
import dev.aorta.analyzer.report.CrossRankJson;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.report.StreamSelection;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import static dev.aorta.cli.CliOptions.NO_LOCALE;

/** {@code aorta analyze}: per-rank, per-window overlap metrics (docs/metrics.md) and the analyses built on them. */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = {"Read traces (Kineto, rocprofv3 CSV/JSON/rocpd, rocprof results.csv, Nsight Systems SQLite,"
                + " aorta agent JSONL/JFR, AORTA rank_*_metrics.jsonl; format detected by content) and print per-rank,"
                + " per-window overlap metrics.",
                "Files of the same rank are merged into one timeline; several ranks are aligned by their collectives."})
public final class AnalyzeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "TRACE", description = "Trace files or directories.")
    List<Path> traces;

    // The fields start at the options' defaults: picocli sets the same values, and PlainAnalyzeArguments, which
    // parses analyze's plain arguments without picocli's model, keeps them when an option is not given
    @Option(names = "--window", paramLabel = "steps|whole|ranges|captures", defaultValue = "steps",
            description = "Windows to measure: each iteration (ProfilerStep, agent iteration, AORTA step), the whole"
                    + " trace, each NVTX/roctx/user range, or each capture window of the agent (default: ${DEFAULT-VALUE}).")
    String window = "steps";

    @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
            description = "text (default) or json: one JSON object per line per rank and window.")
    String format = "text";

    @Option(names = "--details", description = "With --format json: add streams, kernels, queue switch, dispatch,"
            + " launch latency, queue length, JVM attribution, idle time by cause, API calls, kernel launches and copy"
            + " bandwidth to each object.")
    boolean details;

    @Option(names = "--top", defaultValue = "10", paramLabel = "N", description = "Kernel names listed per class (default: ${DEFAULT-VALUE}).")
    int top = 10;

    @Option(names = "--streams", defaultValue = "" + StreamSelection.DEFAULT_CAP, paramLabel = "N",
            description = "Streams listed one by one per window in text output: all when there are at most N, else the"
                    + " N busiest and one line for the rest (default: ${DEFAULT-VALUE}; --details JSON lists all).")
    int streams = StreamSelection.DEFAULT_CAP;

    @Option(names = "--benchmark", description = "Print parse and analysis throughput (MB/s of uncompressed input) to stderr.")
    boolean benchmark;

    @Option(names = "--repeat", defaultValue = "1", paramLabel = "N",
            description = "With --benchmark: read and analyse N times (the first runs include JIT warm-up).")
    int repeat = 1;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Mixin
    ClassifierOptions classes = new ClassifierOptions();

    @Spec
    CommandSpec spec;

    /** Where the report and the warnings go: picocli's writers, or, without picocli's model, ones made as it makes them. */
    private PrintWriter out;
    private PrintWriter err;

    private PrintWriter out() {
        if (out == null) {
            out = spec != null ? spec.commandLine().getOut() : PlainAnalyzeArguments.writer(System.out, "sun.stdout.encoding");
        }
        return out;
    }

    private PrintWriter err() {
        if (err == null) {
            err = spec != null ? spec.commandLine().getErr() : PlainAnalyzeArguments.writer(System.err, "sun.stderr.encoding");
        }
        return err;
    }

    @Override
    public Integer call() throws IOException {
        if (top < 0) {
            throw new IllegalArgumentException("--top must be 0 or more (kernel names listed per class), got " + top);
        }
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be 1 or more (times the traces are read and analysed), got "
                    + repeat);
        }
        if (streams < 1) {
            throw new IllegalArgumentException("--streams " + streams + ": expected at least 1 (how many streams each"
                    + " window lists one by one)");
        }
        WindowMode mode = CliOptions.windowMode(window);
        boolean json = CliOptions.isJson(format);
        AnalysisOptions options = new AnalysisOptions(mode, classes.classifier(), top);
        long bytes = benchmark ? CliOptions.uncompressedBytes(traces) : 0;
        TraceAnalysis analysis = null;
        for (int run = 1; run <= (benchmark ? repeat : 1); run++) {
            long t0 = System.nanoTime();
            TraceSet set = TraceLoader.withInstalledReaders().load(traces);
            long t1 = System.nanoTime();
            analysis = TraceAnalysis.of(set, options);
            long t2 = System.nanoTime();
            if (benchmark) {
                Runtime rt = Runtime.getRuntime();
                err().printf(NO_LOCALE, "aorta analyze: benchmark run %d: %.1f MB uncompressed,"
                                + " parse %.3f s (%.1f MB/s), analyse %.3f s, parse+analyse %.1f MB/s, heap used %.0f MB"
                                + " of %.0f MB max%n", run, bytes / 1e6, (t1 - t0) / 1e9, bytes / 1e3 / ((t1 - t0) / 1e6),
                        (t2 - t1) / 1e9, bytes / 1e3 / ((t2 - t0) / 1e6), (rt.totalMemory() - rt.freeMemory()) / 1e6,
                        rt.maxMemory() / 1e6);
            }
        }
        if (analysis.windows().isEmpty()) {
            // the warnings say, per rank, what its files hold and what is missing for a result
            throw new IllegalArgumentException("nothing to measure: " + String.join("; ", analysis.warnings()));
        }
        PrintWriter out = out();
        if (json) {
            printJson(analysis, out);
        } else {
            out.print(text(analysis, streams));
        }
        out.flush();
        analysis.warnings().forEach(w -> err().println("aorta analyze: warning: " + w));
        return 0;
    }

    private void printJson(TraceAnalysis analysis, PrintWriter out) throws IOException {
        JsonFactory f = JsonFactory.builder().build();
        for (WindowReport r : analysis.windows()) {
            StringWriter line = new StringWriter();
            try (JsonGenerator g = f.createGenerator(line)) {
                WindowReportJson.write(g, r, coverageOf(analysis, r.rank()), details);
            }
            out.println(line);
        }
        if (analysis.timelines().size() > 1) {
            // what the text prints below the windows: one more line, told from a window's by having no "window"
            StringWriter line = new StringWriter();
            try (JsonGenerator g = f.createGenerator(line)) {
                g.writeStartObject();
                g.writeObjectFieldStart("cross_rank");
                g.writeNumberField("ranks", analysis.timelines().size());
                CrossRankJson.writeFields(g, analysis);
                g.writeEndObject();
                g.writeEndObject();
            }
            out.println(line);
        }
    }

    /** Where a step window's bounds come from, with the host step's length for comparison. */
    private static String stepBasis(Window w) {
        String host = "host step " + ms(w.hostEndNs() - w.hostStartNs());
        return switch (w.basis()) {
            case DEVICE -> String.format(NO_LOCALE, "on the device: first to last kernel launched in the step, from %s"
                    + " after the host step began (%s)", ms(w.startNs() - w.hostStartNs()), host);
            case HOST_NO_DEVICE_WORK -> "no device work was launched in this step: measured over its host range ("
                    + host + ")";
            case HOST_UNLINKED, AS_MARKED -> "on the host step range: kernels are not linked to their launches (" + host
                    + ")";
        };
    }

    private static StepCoverage coverageOf(TraceAnalysis analysis, int rank) {
        return analysis.stepCoverage().stream().filter(c -> c.rank() == rank).findFirst().orElse(null);
    }

    /** The human-readable report, listing up to {@code streamCap} streams of each window one by one. */
    public static String text(TraceAnalysis analysis, int streamCap) {
        StringWriter s = new StringWriter();
        PrintWriter out = new PrintWriter(s);
        for (WindowReport r : analysis.windows()) {
            OverlapMetrics m = r.overlap();
            out.printf(NO_LOCALE, "rank %d  %s  [%s]%n", r.rank(), r.window().label(), r.source());
            if (r.window().kind() == Window.Kind.STEP) {
                out.println("  " + stepBasis(r.window()));
            }
            out.printf(NO_LOCALE, "  window %s  busy %s  idle %s%n", ms(m.windowNs()), ms(m.busyNs()), ms(m.idleNs()));
            out.printf(NO_LOCALE, "  compute %s  comm %s  overlap %s  exposed comm %s  exposed memcpy %s%n",
                    ms(m.computeNs()), ms(m.commNs()), ms(m.overlapNs()), ms(m.exposedCommNs()), ms(m.exposedMemcpyNs()));
            out.printf(NO_LOCALE, "  comm_overlap_pct %s  aorta_overlap_ratio %s%n",
                    orNa(m.commOverlapPct(), "%.1f%%", 1), orNa(m.aortaOverlapRatio(), "%.3f", 1));
            StreamSelection streams = StreamSelection.busiest(r.streams(), streamCap);
            for (LabelledStreamUtilization u : streams.shown()) {
                out.printf(NO_LOCALE, "  stream %-10s busy %s  utilization %.1f%%%n", u.label(), ms(u.busyNs()),
                        100 * u.utilization());
            }
            if (streams.hiddenCount() > 0) {
                out.printf(NO_LOCALE, "  %s: busy %s summed over them, none busier than %s%n",
                        count(streams.hiddenCount(), "more stream", "more streams"), ms(streams.hiddenBusyNs()),
                        ms(streams.hiddenMaxBusyNs()));
            }
            for (KernelBreakdown.Entry k : r.kernels()) {
                out.printf(NO_LOCALE, "  %-13s %6d x  total %s  mean %.1f us  %5.1f%%  %s%n",
                        k.activityClass().name().toLowerCase(Locale.ROOT), k.count(), ms(k.totalNs()), k.meanNs() / 1e3,
                        100 * k.shareOfClass(), abbreviate(k.name()));
            }
            QueueSwitchOverhead sw = r.queueSwitch();
            out.printf(NO_LOCALE, "  queue switch: %d intra gaps (mean %.1f us), %d inter gaps (mean %.1f us)%n",
                    sw.intraGaps(), sw.intraGapsNs().mean() / 1e3, sw.interGaps(), sw.interGapsNs().mean() / 1e3);
            out.println("    " + switchOverhead(sw));
            if (sw.interGaps() > 0) {
                out.println("    (" + WindowReportJson.SWITCH_OVERHEAD_MEANING + ")");
            }
            out.printf(NO_LOCALE, "  dispatch latency: same-stream %s; cross-stream %s; from enqueue %s%n",
                    latency(r.dispatch().sameStream()), latency(r.dispatch().crossStream()),
                    latency(r.dispatch().fromEnqueue()));
            out.printf(NO_LOCALE, "  launch latency: %s%n", latency(r.launch().latency()));
            out.printf(NO_LOCALE, "  queue length (%s): max %d, mean %.2f%n", r.queueLength().basis(),
                    r.queueLength().max(), r.queueLength().timeWeightedMean());
            for (dev.aorta.analyzer.metrics.QueueLength.StreamQueue q : r.queueLength().streams().stream()
                    .sorted((a, b) -> Long.compare(b.max(), a.max())).limit(streamCap).toList()) {
                out.printf(NO_LOCALE, "    stream %-10s max %d, mean %.2f%s%n", q.label(), q.max(), q.timeWeightedMean(),
                        q.blockedCalls() == 0 ? "" : String.format(NO_LOCALE, ", %d launches made while %d were"
                                        + " pending: %s in those calls", q.blockedCalls(),
                                dev.aorta.analyzer.metrics.QueueLength.PENDING_LAUNCH_LIMIT, ms(q.blockedNs())));
            }
            if (r.jvm() != null) {
                out.printf(NO_LOCALE, "  JVM: %d idle gaps; %d GC pauses, %d gaps coincide with GC (%s idle);"
                                + " %d safepoints, %d gaps coincide with safepoints (%s idle)%n", r.jvm().idleGaps(),
                        r.jvm().gcPauses(), r.jvm().gapsWithGc(), ms(r.jvm().idleDuringGcNs()), r.jvm().safepoints(),
                        r.jvm().gapsWithSafepoint(), ms(r.jvm().idleDuringSafepointNs()));
            }
            BreakdownsText.print(out, r.breakdowns(), streamCap);
            for (AnalysisResult a : r.analyses()) {
                out.printf(NO_LOCALE, "  %s: %s%n", a.analysis(), a.valuesText());
            }
        }
        for (StepCoverage c : analysis.stepCoverage()) {
            out.printf(NO_LOCALE, "rank %d: device time in no step %s of %s busy (%s)%s%n", c.rank(), ms(c.inNoStepNs()),
                    ms(c.busyNs()), orNa(c.inNoStepFraction(), "%.1f%%", 100), c.stepsWithoutDeviceWork() == 0 ? ""
                            : "; " + c.stepsWithoutDeviceWork() + " of " + c.steps() + " steps launched no device work");
        }
        if (analysis.offsets().size() > 1) {
            out.println("clock alignment by collectives (offset added to each rank's times):");
            for (CollectiveAlignment.Offset o : analysis.offsets().values()) {
                out.printf(NO_LOCALE, "  rank %d  offset %+.3f ms  matched %d collectives  residual %.3f ms%s%n",
                        o.rank(), o.offsetNs() / 1e6, o.matchedCollectives(), o.residualNs() / 1e6,
                        o.aligned() ? "" : "  (not aligned: no matching collectives)");
            }
        }
        for (Stragglers st : analysis.stragglers()) {
            out.printf(NO_LOCALE, "step %d: straggler rank %d (others waited %.3f ms in total)%n", st.step(),
                    st.stragglerRank(), st.latenessNs() / 1e6);
        }
        List<KernelBreakdown.AcrossRanks> acrossRanks = analysis.timelines().size() > 1
                ? analysis.kernelsAcrossRanks() : List.of();
        if (!acrossRanks.isEmpty()) {
            out.println("kernels across ranks (whole trace, most time over all ranks first; slowest: largest mean):");
            for (KernelBreakdown.AcrossRanks k : acrossRanks) {
                StringBuilder perRank = new StringBuilder();
                for (KernelBreakdown.RankEntry e : k.ranks()) {
                    perRank.append(String.format(NO_LOCALE, "  r%d %d x %s %.1f%%", e.rank(), e.count(),
                            ms(e.totalNs()), 100 * e.shareOfClass()));
                }
                out.printf(NO_LOCALE, "  %-13s %s%s  %s%n", k.activityClass().name().toLowerCase(Locale.ROOT),
                        k.slowestRank() < 0 ? "no slowest rank" : "slowest rank " + k.slowestRank(), perRank,
                        abbreviate(k.name()));
            }
        }
        if (!analysis.collectiveSkew().isEmpty()) {
            out.println("collective skew across ranks (latest − earliest, on the aligned clocks):");
            for (CollectiveSkew sk : analysis.collectiveSkew()) {
                out.printf(NO_LOCALE, "  %-14s %s  %d matched  start skew mean %.3f ms max %.3f ms  end skew max"
                                + " %.3f ms  last to start: rank %d (%d x)%n", sk.kind().label(), sk.messageBytes() < 0
                                ? "size n/a" : BreakdownsText.bytes(sk.messageBytes()),
                        sk.collectives(), sk.startSkewNs().mean() / 1e6, sk.startSkewNs().max() / 1e6,
                        sk.endSkewNs().max() / 1e6, sk.lastToStartRank(), sk.timesLastToStart());
            }
        }
        out.flush();
        return s.toString();
    }

    /** The estimate with the samples behind it; without a stream switch that left a gap there is nothing to estimate. */
    private static String switchOverhead(QueueSwitchOverhead sw) {
        Double estimate = sw.estimatedSwitchOverheadNs();
        if (estimate == null) {
            return "estimated switch overhead n/a: it needs idle gaps both between kernels of different streams (here "
                    + sw.interGaps() + ") and between kernels of one stream (here " + sw.intraGaps() + ")";
        }
        return String.format(NO_LOCALE, "estimated switch overhead %.1f us: from %s that left an idle gap against %s"
                        + " (%s qualified)", estimate / 1e3,
                count(sw.interGaps(), "stream switch", "stream switches"),
                count(sw.intraGaps(), "same-stream gap", "same-stream gaps"),
                count(sw.intraGaps() + sw.interGaps(), "gap", "gaps"));
    }

    private static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private static String ms(long ns) {
        return String.format(NO_LOCALE, "%.3f ms", ns / 1e6);
    }

    private static String latency(dev.aorta.core.metric.SampleStats s) {
        return s.count() == 0 ? "n/a" : String.format(NO_LOCALE, "n=%d mean %.1f us p50 %.1f us p95 %.1f us max %.1f us",
                s.count(), s.mean() / 1e3, s.p50() / 1e3, s.p95() / 1e3, s.max() / 1e3);
    }

    /** An undefined metric prints n/a (docs/metrics.md); a defined one, times {@code scale}, in {@code format}. */
    private static String orNa(Double v, String format, double scale) {
        return v == null ? "n/a" : String.format(NO_LOCALE, format, v * scale);
    }

    private static String abbreviate(String name) {
        return name.length() <= 90 ? name : name.substring(0, 87) + "...";
    }

}
