package dev.aorta.analyzer.report;

import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.metrics.Stragglers;
import dev.aorta.core.metric.CollectiveSkew;
import dev.aorta.analyzer.metrics.WindowReport;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/** The self-contained {@code report.html}: tables of the summary and the plots embedded as data URIs. */
public final class HtmlReport {
    private HtmlReport() {
    }

    public static void write(OverlapReport report, Map<String, byte[]> plots, OutputStream out) throws IOException {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aorta overlap report</title><style>"
                + "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
                + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f0f0f0}"
                + "td:first-child,th:first-child{text-align:left}.sig{color:#b00;font-weight:bold}"
                + "img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
                + "td.name,th.name,td.text{text-align:left}td.name{word-break:break-all;max-width:720px;font-size:90%}"
                + "</style></head><body>\n");
        w.write("<h1>aorta overlap report</h1>\n<p>Per-iteration overlap metrics (device activity; times in ms). "
                + "comm_overlap_pct = share of communication hidden under compute; aorta_overlap_ratio = overlap / compute."
                + "</p>\n");
        for (LabelRun run : report.runs()) {
            w.write("<h2>" + esc(run.label()) + "</h2>\n<p>" + esc(run.logDir().toString()) + " &mdash; "
                    + run.analysis().timelines().size() + " rank(s), " + run.iterations().size()
                    + " iteration window(s)</p>\n<table><tr><th>metric</th><th>n</th><th>mean</th><th>median</th>"
                    + "<th>std</th><th>min</th><th>max</th></tr>\n");
            for (Map.Entry<Metric, Aggregate> e : report.aggregates(run).entrySet()) {
                Aggregate a = e.getValue();
                w.write("<tr><td>" + label(e.getKey()) + "</td><td>" + a.count() + "</td>" + cell(e.getKey(), a.mean())
                        + cell(e.getKey(), a.median()) + cell(e.getKey(), a.std()) + cell(e.getKey(), a.min())
                        + cell(e.getKey(), a.max()) + "</tr>\n");
            }
            w.write("</table>\n");
            for (Map.Entry<String, Map<String, Aggregate>> analysis : report.analysisAggregates(run).entrySet()) {
                w.write("<h3>Analysis: " + esc(analysis.getKey()) + "</h3><table><tr><th>value</th><th>n</th>"
                        + "<th>mean</th><th>median</th><th>std</th><th>min</th><th>max</th></tr>\n");
                for (Map.Entry<String, Aggregate> e : analysis.getValue().entrySet()) {
                    Aggregate a = e.getValue();
                    w.write("<tr><td>" + esc(e.getKey()) + "</td><td>" + a.count() + "</td><td>" + fmt(a.mean(), "%.3f")
                            + "</td><td>" + fmt(a.median(), "%.3f") + "</td><td>" + fmt(a.std(), "%.3f") + "</td><td>"
                            + fmt(a.min(), "%.3f") + "</td><td>" + fmt(a.max(), "%.3f") + "</td></tr>\n");
                }
                w.write("</table>\n");
            }
            w.write("<h3>Top kernels (whole trace)</h3><table><tr><th>rank</th><th>class</th><th>count</th>"
                    + "<th>total (ms)</th><th>share of class</th><th class=\"name\">name</th></tr>\n");
            for (WindowReport.RankKernels rk : run.topKernels()) {
                for (KernelBreakdown.Entry k : rk.kernels()) {
                    w.write("<tr><td>" + rk.rank() + "</td><td class=\"text\">" + k.activityClass().name().toLowerCase(Locale.ROOT)
                            + "</td><td>" + k.count() + "</td><td>" + fmt(k.totalNs() / 1e6, "%.3f") + "</td><td>"
                            + fmt(100 * k.shareOfClass(), "%.1f%%") + "</td><td class=\"name\">"
                            + esc(abbreviate(k.name())) + "</td></tr>\n");
                }
            }
            w.write("</table>\n");
            BreakdownsHtml.write(w, run.wholeTraceBreakdowns());
            CriticalPathHtml.write(w, run.iterations());
            if (run.analysis().offsets().size() > 1) {
                w.write("<h3>Clock alignment and stragglers</h3><table><tr><th>rank</th><th>offset (ms)</th>"
                        + "<th>collectives matched</th><th>residual (ms)</th></tr>\n");
                for (CollectiveAlignment.Offset o : run.analysis().offsets().values()) {
                    w.write("<tr><td>" + o.rank() + "</td><td>" + fmt(o.offsetNs() / 1e6, "%.3f") + "</td><td>"
                            + o.matchedCollectives() + "</td><td>" + fmt(o.residualNs() / 1e6, "%.3f") + "</td></tr>\n");
                }
                w.write("</table><table><tr><th>step</th><th>straggler rank</th><th>others waited (ms)</th></tr>\n");
                for (Stragglers st : run.analysis().stragglers()) {
                    w.write("<tr><td>" + st.step() + "</td><td>" + st.stragglerRank() + "</td><td>"
                            + fmt(st.latenessNs() / 1e6, "%.3f") + "</td></tr>\n");
                }
                w.write("</table><table><tr><th>collective</th><th>MB</th><th>matched</th><th>start skew mean (ms)</th>"
                        + "<th>start skew max (ms)</th><th>end skew max (ms)</th><th>last to start (rank, times)</th>"
                        + "</tr>\n");
                for (CollectiveSkew sk : run.analysis().collectiveSkew()) {
                    w.write("<tr><td class=\"text\">" + sk.kind().label() + "</td><td>"
                            + (sk.messageBytes() < 0 ? "&ndash;" : fmt(sk.messageBytes() / 1e6, "%.3f")) + "</td><td>"
                            + sk.collectives() + "</td><td>" + fmt(sk.startSkewNs().mean() / 1e6, "%.3f") + "</td><td>"
                            + fmt(sk.startSkewNs().max() / 1e6, "%.3f") + "</td><td>"
                            + fmt(sk.endSkewNs().max() / 1e6, "%.3f") + "</td><td>" + sk.lastToStartRank() + ", "
                            + sk.timesLastToStart() + "</td></tr>\n");
                }
                w.write("</table>\n");
            }
            if (!run.analysis().warnings().isEmpty()) {
                w.write("<details><summary>" + run.analysis().warnings().size() + " warning(s)</summary><ul>");
                for (String warning : run.analysis().warnings()) {
                    w.write("<li>" + esc(warning) + "</li>");
                }
                w.write("</ul></details>\n");
            }
        }
        for (String candidate : report.candidates()) {
            w.write("<h2 id=\"" + esc(candidate) + "-vs-" + esc(report.reference()) + "\">" + esc(candidate) + " vs "
                    + esc(report.reference()) + "</h2>\n<table><tr><th>metric</th>"
                    + "<th>" + esc(report.reference()) + " mean</th><th>" + esc(candidate) + " mean</th><th>delta</th>"
                    + "<th>ratio</th><th>Welch t p</th><th>Mann-Whitney p</th></tr>\n");
            for (Comparison c : report.comparison(candidate)) {
                w.write("<tr" + (c.significant() ? " class=\"sig\"" : "") + "><td>" + label(c.metric()) + "</td>"
                        + cell(c.metric(), c.referenceMean()) + cell(c.metric(), c.candidateMean())
                        + cell(c.metric(), c.delta()) + "<td>" + fmt(c.ratio(), "%.3f") + "</td><td>"
                        + fmt(c.welchP(), "%.4f") + "</td><td>" + fmt(c.mannWhitneyP(), "%.4f") + "</td></tr>\n");
            }
            w.write("</table><p>Rows in red differ significantly (Welch's t-test, p &lt; 0.05).</p>\n");
        }
        for (Map.Entry<String, byte[]> p : plots.entrySet()) {
            w.write("<h3 id=\"" + esc(p.getKey()) + "\">" + esc(p.getKey()) + "</h3><img alt=\"" + esc(p.getKey()) + "\" src=\"data:image/png;base64,"
                    + Base64.getEncoder().encodeToString(p.getValue()) + "\">\n");
        }
        w.write("</body></html>\n");
        w.flush();
    }

    /**
     * The metric's name with the unit the table shows it in: durations are shown in ms, so their {@code _ns} suffix
     * (right in summary.json, which keeps nanoseconds) is dropped rather than contradicting the unit.
     */
    private static String label(Metric m) {
        String key = m.key();
        if (key.endsWith("_ns")) {
            return key.substring(0, key.length() - "_ns".length()) + " (ms)";
        }
        return key + (key.endsWith("_pct") ? " (%)" : "");
    }

    private static String abbreviate(String name) {
        return name.length() <= 100 ? name : name.substring(0, 97) + "...";
    }

    private static String cell(Metric m, double v) {
        boolean ns = m.key().endsWith("_ns");
        return "<td>" + (ns ? fmt(v / 1e6, "%.3f") : fmt(v, "%.3f")) + "</td>";
    }

    private static String fmt(double v, String pattern) {
        return Double.isNaN(v) ? "&ndash;" : String.format(Locale.ROOT, pattern, v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
