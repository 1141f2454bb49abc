package dev.aorta.workloads.result;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.core.metric.SampleStats;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One self-contained HTML page of one run (what {@code aorta profile} writes next to the Perfetto trace): the device
 * timeline of the first measured iterations as one row per stream (an inline SVG, no scripts or external files),
 * and beside it the figures the run computed from the same records: per-stream busy time, queue-switch gaps and
 * dispatch latency.
 */
public final class ProfilePage {
    /** Iterations drawn: enough to see the pattern, few enough that every activity is a visible box. */
    static final int DRAWN_ITERATIONS = 3;
    private static final int WIDTH = 1100;
    private static final int LABEL = 190;
    private static final int ROW = 26;

    private ProfilePage() {
    }

    public static String html(RunResult r) {
        StringBuilder h = new StringBuilder();
        String title = r.workloadName() + " at " + r.options().streams() + " streams";
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aorta profile: ").append(esc(title))
                .append("</title><style>body{font-family:sans-serif;margin:2em;color:#222}")
                .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;")
                .append("text-align:right}th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}")
                .append(".row{display:flex;gap:2em;flex-wrap:wrap}svg{border:1px solid #ddd}")
                .append("</style></head><body>\n");
        h.append("<h1>aorta profile: ").append(esc(title)).append("</h1>\n<p>").append(esc(r.device().name()))
                .append(" (device ").append(r.device().ordinal()).append(", compute ")
                .append(r.device().computeCapability()).append("); timing source ")
                .append(esc(r.kernelTiming().source().label())).append(": ").append(esc(r.kernelTiming().sourceNote()))
                .append("</p>\n<p>throughput ").append(fmt(r.throughput().value())).append(' ')
                .append(esc(r.throughput().unit()));
        if (r.latencyMs() != null) {
            h.append("; iteration p50 ").append(fmt(r.latencyMs().p50())).append(" ms, p99 ")
                    .append(fmt(r.latencyMs().p99())).append(" ms");
        }
        h.append("</p>\n");
        timeline(h, r);
        h.append("<div class=\"row\"><div>");
        streams(h, r);
        h.append("</div><div>");
        switchAndDispatch(h, r.kernelTiming().switchOverhead(), r.kernelTiming().dispatchLatency());
        h.append("</div></div>\n");
        h.append("<p>The full timeline of every measured iteration is in the Perfetto trace beside this page "
                + "(ui.perfetto.dev, one track per stream).</p></body></html>\n");
        return h.toString();
    }

    private static void timeline(StringBuilder h, RunResult r) {
        List<List<DeviceActivity>> windows = r.activities();
        List<DeviceActivity> drawn = windows.stream().limit(r.kernelTiming().perIterationWindows()
                ? DRAWN_ITERATIONS : 1).flatMap(List::stream).toList();
        h.append("<h2>Device timeline</h2>\n");
        if (drawn.isEmpty()) {
            h.append("<p>No device activity was captured.</p>\n");
            return;
        }
        long t0 = drawn.stream().mapToLong(DeviceActivity::startNs).min().orElseThrow();
        long t1 = drawn.stream().mapToLong(DeviceActivity::endNs).max().orElseThrow();
        double scale = (WIDTH - LABEL - 10) / (double) Math.max(1, t1 - t0);
        Map<Long, Integer> row = new HashMap<>();
        for (RunResult.StreamStats s : r.streams()) {
            row.put(s.activityStreamId(), s.index());
        }
        int height = ROW * r.streams().size() + 30;
        h.append("<p>").append(r.kernelTiming().perIterationWindows() ? "The first " + Math.min(DRAWN_ITERATIONS,
                windows.size()) + " measured iterations" : "The measured iterations").append(", ")
                .append(fmt((t1 - t0) / 1e3)).append(" &micro;s; kernels blue, copies orange, memsets grey; hover "
                        + "for name and duration.</p>\n");
        h.append("<svg width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\">\n");
        for (RunResult.StreamStats s : r.streams()) {
            int y = ROW * s.index() + 5;
            h.append("<text x=\"4\" y=\"").append(y + 16).append("\">stream ").append(s.index()).append(" (")
                    .append(esc(s.role())).append(", prio ").append(s.priority()).append(")</text>\n");
        }
        for (DeviceActivity a : drawn) {
            Integer index = row.get(a.stream());
            if (index == null) {
                continue; // work on a stream the run did not create (none in bundled workloads)
            }
            double x = LABEL + (a.startNs() - t0) * scale;
            double w = Math.max(0.5, a.durationNs() * scale);
            String color = a.kind() == ActivityKind.MEMCPY ? "#e8892b" : a.kind() == ActivityKind.MEMSET ? "#999"
                    : "#3b75c4";
            h.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                            + "<title>%s: %s us</title></rect>%n", x, ROW * index + 6, w, ROW - 8, color,
                    esc(a.name()), fmt(a.durationNs() / 1e3)));
        }
        h.append("<text x=\"").append(LABEL).append("\" y=\"").append(height - 6).append("\">0</text><text x=\"")
                .append(WIDTH - 80).append("\" y=\"").append(height - 6).append("\">").append(fmt((t1 - t0) / 1e3))
                .append(" &micro;s</text></svg>\n");
    }

    private static void streams(StringBuilder h, RunResult r) {
        h.append("<h2>Streams</h2><table><tr><th>stream</th><th>role</th><th>priority</th><th>activities</th>"
                + "<th>busy (ms)</th></tr>\n");
        for (RunResult.StreamStats s : r.streams()) {
            h.append("<tr><td>").append(s.index()).append("</td><td>").append(esc(s.role())).append("</td><td>")
                    .append(s.priority()).append("</td><td>").append(s.kernelCount()).append("</td><td>")
                    .append(fmt(s.busyMs())).append("</td></tr>\n");
        }
        h.append("</table>\n");
    }

    private static void switchAndDispatch(StringBuilder h, QueueSwitchOverhead s, DispatchLatency d) {
        h.append("<h2>Queue switch and dispatch (&micro;s)</h2><table><tr><th>figure</th><th>n</th><th>mean</th>"
                + "<th>p50</th><th>max</th></tr>\n");
        statsRow(h, "inter-stream gap", s.interGapsNs().scaled(1e-3));
        statsRow(h, "intra-stream gap", s.intraGapsNs().scaled(1e-3));
        Double estimate = s.estimatedSwitchOverheadNs();
        h.append("<tr><td>estimated switch overhead</td><td></td><td>")
                .append(estimate == null ? "n/a" : fmt(estimate / 1e3)).append("</td><td></td><td></td></tr>\n");
        if (d.measured()) {
            statsRow(h, "dispatch, same stream", d.sameStream().scaled(1e-3));
            statsRow(h, "dispatch, cross stream", d.crossStream().scaled(1e-3));
            statsRow(h, "dispatch, from enqueue", d.fromEnqueue().scaled(1e-3));
        }
        h.append("</table>\n");
        if (!d.measured()) {
            h.append("<p>Dispatch latency: ").append(esc(RunResult.KernelTiming.DISPATCH_NEEDS_QUEUED)).append("</p>\n");
        }
        h.append("<p>Definitions (docs/metrics.md): the switch overhead is an upper bound, the mean idle gap between "
                + "consecutive kernels on different streams minus that on one stream, n/a without both kinds of gap; "
                + "dispatch latency is how long a kernel queued behind work waited after that work ended.</p>\n");
    }

    private static void statsRow(StringBuilder h, String name, SampleStats s) {
        if (s.count() == 0) {
            h.append("<tr><td>").append(name).append("</td><td>0</td><td></td><td></td><td></td></tr>\n");
            return;
        }
        h.append("<tr><td>").append(name).append("</td><td>").append(s.count()).append("</td><td>")
                .append(fmt(s.mean())).append("</td><td>").append(fmt(s.p50())).append("</td><td>")
                .append(fmt(s.max())).append("</td></tr>\n");
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
