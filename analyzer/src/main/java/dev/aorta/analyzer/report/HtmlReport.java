package dev.aorta.analyzer.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
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
                + "img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}</style></head><body>\n");
        w.write("<h1>aorta overlap report</h1>\n<p>Per-iteration §5 metrics (device activity; times in ms). "
                + "comm_overlap_pct = share of communication hidden under compute; aorta_overlap_ratio = overlap / compute."
                + "</p>\n");
        for (LabelRun run : report.runs()) {
            w.write("<h2>" + esc(run.label()) + "</h2>\n<p>" + esc(run.logDir().toString()) + " &mdash; "
                    + run.analysis().timelines().size() + " rank(s), " + run.iterations().size()
                    + " iteration window(s)</p>\n<table><tr><th>metric</th><th>n</th><th>mean</th><th>median</th>"
                    + "<th>std</th><th>min</th><th>max</th></tr>\n");
            for (Map.Entry<Metric, Aggregate> e : report.aggregates(run).entrySet()) {
                Aggregate a = e.getValue();
                w.write("<tr><td>" + e.getKey().key() + "</td><td>" + a.count() + "</td>" + cell(e.getKey(), a.mean())
                        + cell(e.getKey(), a.median()) + cell(e.getKey(), a.std()) + cell(e.getKey(), a.min())
                        + cell(e.getKey(), a.max()) + "</tr>\n");
            }
            w.write("</table>\n");
            if (!run.analysis().warnings().isEmpty()) {
                w.write("<details><summary>" + run.analysis().warnings().size() + " warning(s)</summary><ul>");
                for (String warning : run.analysis().warnings()) {
                    w.write("<li>" + esc(warning) + "</li>");
                }
                w.write("</ul></details>\n");
            }
        }
        for (String candidate : report.candidates()) {
            w.write("<h2>" + esc(candidate) + " vs " + esc(report.reference()) + "</h2>\n<table><tr><th>metric</th>"
                    + "<th>" + esc(report.reference()) + " mean</th><th>" + esc(candidate) + " mean</th><th>delta</th>"
                    + "<th>ratio</th><th>Welch t p</th><th>Mann-Whitney p</th></tr>\n");
            for (Comparison c : report.comparison(candidate)) {
                w.write("<tr" + (c.significant() ? " class=\"sig\"" : "") + "><td>" + c.metric().key() + "</td>"
                        + cell(c.metric(), c.referenceMean()) + cell(c.metric(), c.candidateMean())
                        + cell(c.metric(), c.delta()) + "<td>" + fmt(c.ratio(), "%.3f") + "</td><td>"
                        + fmt(c.welchP(), "%.4f") + "</td><td>" + fmt(c.mannWhitneyP(), "%.4f") + "</td></tr>\n");
            }
            w.write("</table><p>Rows in red differ significantly (Welch's t-test, p &lt; 0.05).</p>\n");
        }
        Map<String, byte[]> ordered = new LinkedHashMap<>(plots);
        for (Map.Entry<String, byte[]> p : ordered.entrySet()) {
            w.write("<h3>" + esc(p.getKey()) + "</h3><img alt=\"" + esc(p.getKey()) + "\" src=\"data:image/png;base64,"
                    + Base64.getEncoder().encodeToString(p.getValue()) + "\">\n");
        }
        w.write("</body></html>\n");
        w.flush();
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
