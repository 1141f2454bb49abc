package dev.aorta.workloads.overhead;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.workloads.result.ResultJson;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Pairs the A and B runs per metric, prints the table and the verdicts, and writes {@value #SCHEMA}. */
public final class OverheadReport {
    public static final String SCHEMA = "aorta.overhead/1";

    private OverheadReport() {
    }

    /** One comparison per metric of the first A run; every run must report every one of them. */
    public static List<PairedComparison> compare(AbRuns.Outcome outcome, double threshold) {
        List<PairedComparison> comparisons = new ArrayList<>();
        for (String metric : outcome.a().getFirst().keySet()) {
            int n = outcome.a().size();
            double[] a = new double[n];
            double[] b = new double[n];
            for (int i = 0; i < n; i++) {
                a[i] = value(outcome.a().get(i), metric, "A" + (i + 1));
                b[i] = value(outcome.b().get(i), metric, "B" + (i + 1));
            }
            comparisons.add(PairedComparison.of(metric, a, b, threshold));
        }
        return comparisons;
    }

    private static double value(Map<String, Double> run, String metric, String name) {
        Double v = run.get(metric);
        if (v == null) {
            throw new IllegalStateException("run " + name + " does not report '" + metric + "' (it reports " + run.keySet() + ")");
        }
        return v;
    }

    /** The worst verdict: exceeds over inconclusive over within. */
    public static PairedComparison.Verdict overall(List<PairedComparison> comparisons) {
        PairedComparison.Verdict worst = PairedComparison.Verdict.WITHIN;
        for (PairedComparison c : comparisons) {
            if (c.verdict() == PairedComparison.Verdict.EXCEEDS) {
                return c.verdict();
            }
            if (c.verdict() == PairedComparison.Verdict.INCONCLUSIVE) {
                worst = c.verdict();
            }
        }
        return worst;
    }

    public static void print(List<PairedComparison> comparisons, double threshold, String interposer, PrintStream out) {
        out.printf(Locale.ROOT, "B = with %s; A = plain; %d runs each, alternating A B%n", interposer, comparisons.getFirst().a().length);
        out.printf(Locale.ROOT, "%-34s %12s %12s %8s %20s  %s%n", "metric", "A median", "B median", "B/A", "95% CI of B/A", "verdict");
        for (PairedComparison c : comparisons) {
            out.printf(Locale.ROOT, "%-34s %12.4f %12.4f %8.4f %20s  %s (%s%%)%n", c.metric(), c.medianA(), c.medianB(),
                    c.ratio(), String.format(Locale.ROOT, "[%.4f, %.4f]", c.ciLow(), c.ciHigh()), c.verdict().label(),
                    percent(threshold));
        }
        out.printf(Locale.ROOT, "overall: %s%n", overall(comparisons).label());
        out.println("meaning: medians over the runs; B/A = geometric mean of the paired ratios B_i/A_i (run i's A and B ran"
                + " back to back); 95% CI = Student's t interval of the mean log ratio;");
        out.printf(Locale.ROOT, "  within threshold = the whole interval <= 1 + %s%%; exceeds = the whole interval above;"
                + " inconclusive = the interval contains it (more --runs narrow it)%n", percent(threshold));
    }

    private static String percent(double threshold) {
        return new java.math.BigDecimal(threshold * 100).round(new java.math.MathContext(3)).stripTrailingZeros()
                .toPlainString();
    }

    public static ObjectNode toJson(List<PairedComparison> comparisons, double threshold, List<String> command,
                                    Interposer interposer, String logs) {
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("timestamp", Instant.now().toString());
        ArrayNode cmd = root.putArray("command");
        command.forEach(cmd::add);
        ObjectNode b = root.putObject("interposer");
        b.put("agent_options", interposer.agentOptions());
        b.put("agent_jar", interposer.agentOptions() == null ? null : interposer.agentJar().toString());
        b.put("preload", interposer.preload() == null ? null : interposer.preload().toString());
        root.put("runs", comparisons.getFirst().a().length);
        root.put("threshold", threshold);
        root.put("confidence", PairedComparison.CONFIDENCE);
        root.put("method", "paired runs A_i B_i alternating; ratio = exp(mean ln(B_i/A_i)); CI = exp(mean ± t(n-1) · sd/sqrt(n))");
        root.put("logs", logs);
        ArrayNode metrics = root.putArray("metrics");
        for (PairedComparison c : comparisons) {
            ObjectNode m = metrics.addObject();
            m.put("metric", c.metric());
            ArrayNode a = m.putArray("a");
            for (double v : c.a()) {
                a.add(v);
            }
            ArrayNode bs = m.putArray("b");
            for (double v : c.b()) {
                bs.add(v);
            }
            m.put("median_a", c.medianA());
            m.put("median_b", c.medianB());
            m.put("ratio", c.ratio());
            m.put("ci_low", c.ciLow());
            m.put("ci_high", c.ciHigh());
            m.put("verdict", c.verdict().label());
        }
        root.put("verdict", overall(comparisons).label());
        return root;
    }
}
