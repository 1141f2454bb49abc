package dev.aorta.analyzer.report;

import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.core.metric.CriticalPath;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * report.html's table of the critical path of each window the report aggregates (each step, or the whole trace of a
 * run without steps): its length and how much of it is host, device and launch time (docs/metrics.md#critical-path),
 * the numbers {@code aorta analyze} prints per window.
 */
final class CriticalPathHtml {
    /** A run of thousands of steps would make a page nobody scrolls; analyze's JSON lists every window. */
    static final int MAX_ROWS = 50;

    private CriticalPathHtml() {
    }

    static void write(Writer w, List<WindowReport> windows) throws IOException {
        w.write("<h3>Critical path per window</h3><table><tr><th>rank</th><th>window</th><th>path (ms)</th>"
                + "<th>host (ms)</th><th>host share</th><th>host calls</th><th>device (ms)</th><th>device share</th>"
                + "<th>device activities</th><th>launch (ms)</th><th>launch share</th></tr>\n");
        for (WindowReport r : windows.subList(0, Math.min(MAX_ROWS, windows.size()))) {
            CriticalPath p = r.breakdowns().criticalPath();
            String window = BreakdownsHtml.esc(r.window().label());
            if (p == null || p.lengthNs() <= 0) {
                w.write(BreakdownsHtml.row(r.rank(), window, "&ndash;", "&ndash;", "&ndash;", "&ndash;", "&ndash;",
                        "&ndash;", "&ndash;", "&ndash;", "&ndash;"));
            } else {
                w.write(BreakdownsHtml.row(r.rank(), window, BreakdownsHtml.ms(p.lengthNs()),
                        BreakdownsHtml.ms(p.hostNs()), share(p.hostNs(), p), Integer.toString(p.hostCalls()),
                        BreakdownsHtml.ms(p.deviceNs()), share(p.deviceNs(), p), Integer.toString(p.deviceActivities()),
                        BreakdownsHtml.ms(p.launchNs()), share(p.launchNs(), p)));
            }
        }
        w.write("</table>\n");
        if (windows.size() > MAX_ROWS) {
            w.write("<p>" + (windows.size() - MAX_ROWS) + " more windows: <code>aorta analyze --format json --details"
                    + "</code> gives the critical path of every window.</p>\n");
        }
    }

    private static String share(long ns, CriticalPath p) {
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * ns / p.lengthNs());
    }
}
