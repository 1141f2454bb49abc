package dev.aorta.analyzer.report;

import dev.aorta.analyzer.metrics.Breakdowns;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.CopyBandwidth;
import dev.aorta.core.metric.GemmThroughput;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.KernelLaunchStatistics;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/** report.html's tables of each rank's whole-trace {@link Breakdowns} (definitions: docs/metrics.md). */
final class BreakdownsHtml {
    private BreakdownsHtml() {
    }

    static void write(Writer w, List<LabelRun.RankBreakdowns> ranks) throws IOException {
        w.write("<h3>Idle time by cause per stream (whole trace)</h3><table><tr><th>rank</th><th>stream</th>"
                + "<th>idle (ms)</th><th>host wait (ms)</th><th>kernel wait (ms)</th><th>other (ms)</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            for (Breakdowns.StreamIdle s : rb.breakdowns().idle()) {
                IdleTimeBreakdown i = s.breakdown();
                w.write(row(rb.rank(), esc(s.label()), ms(i.idleNs()), ms(i.hostWaitNs()), ms(i.kernelWaitNs()),
                        ms(i.otherNs())));
            }
        }
        w.write("</table>\n<h3>Kernel launches (whole trace)</h3><table><tr><th>rank</th><th>launches</th>"
                + "<th>cpu mean (us)</th><th>gpu mean (us)</th><th>launch delay p50 (us)</th>"
                + "<th>launch delay p95 (us)</th><th>short (gpu &lt; cpu)</th><th>runtime outliers</th>"
                + "<th>launch delay outliers</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            KernelLaunchStatistics k = rb.breakdowns().launches();
            w.write(row(rb.rank(), Integer.toString(k.launches()), us(k.cpuDurationNs().mean()),
                    us(k.gpuDurationNs().mean()), us(k.launchDelayNs().p50()), us(k.launchDelayNs().p95()),
                    Integer.toString(k.shortKernels()), Integer.toString(k.runtimeOutliers()),
                    Integer.toString(k.launchDelayOutliers())));
        }
        w.write("</table>\n<h3>API calls (whole trace, top 10 by total time)</h3><table><tr><th>rank</th>"
                + "<th>count</th><th>total (ms)</th><th>mean (us)</th><th>p95 (us)</th><th>share</th>"
                + "<th class=\"name\">name</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            for (ApiStatistics.Entry e : rb.breakdowns().apiCalls()) {
                w.write("<tr><td>" + rb.rank() + "</td><td>" + e.count() + "</td><td>" + ms(e.totalNs()) + "</td><td>"
                        + us(e.durationNs().mean()) + "</td><td>" + us(e.durationNs().p95()) + "</td><td>"
                        + String.format(Locale.ROOT, "%.1f%%", 100 * e.share()) + "</td><td class=\"name\">"
                        + esc(e.name()) + "</td></tr>\n");
            }
        }
        w.write("</table>\n<h3>Memory-copy bandwidth (whole trace)</h3><table><tr><th>rank</th><th>direction</th>"
                + "<th>copies</th><th>MB</th><th>time (ms)</th><th>GB/s</th><th>per copy p50 (GB/s)</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            for (CopyBandwidth c : rb.breakdowns().copies()) {
                w.write(row(rb.rank(), c.direction().label(), Integer.toString(c.copies()),
                        String.format(Locale.ROOT, "%.3f", c.bytes() / 1e6), ms(c.durationNs()),
                        c.gbps() == null ? "&ndash;" : String.format(Locale.ROOT, "%.2f", c.gbps()),
                        String.format(Locale.ROOT, "%.2f", c.perCopyGbps().p50())));
            }
        }
        w.write("</table>\n<h3>Collectives (whole trace)</h3><table><tr><th>rank</th><th>collective</th>"
                + "<th>MB</th><th>ranks</th><th>count</th><th>time (ms)</th><th>mean (us)</th><th>algbw (GB/s)</th>"
                + "<th>busbw (GB/s)</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            for (CollectiveBandwidth c : rb.breakdowns().collectives()) {
                w.write(row(rb.rank(), c.kind().label(), c.messageBytes() < 0 ? "&ndash;"
                                : String.format(Locale.ROOT, "%.3f", c.messageBytes() / 1e6),
                        c.groupSize() < 0 ? "&ndash;" : Integer.toString(c.groupSize()), Integer.toString(c.count()),
                        ms(c.totalNs()), us(c.meanNs()), gbps(c.algbwGbps()), gbps(c.busbwGbps())));
            }
        }
        w.write("</table>\n<h3>GEMMs (whole trace, top 10 shapes by device time)</h3><table><tr><th>rank</th>"
                + "<th>M</th><th>N</th><th>K</th><th>batch</th><th>dtype</th><th>ops</th><th>time (ms)</th>"
                + "<th>TFLOP/s</th></tr>\n");
        for (LabelRun.RankBreakdowns rb : ranks) {
            for (GemmThroughput g : rb.breakdowns().gemms()) {
                w.write(row(rb.rank(), Long.toString(g.shape().m()), Long.toString(g.shape().n()),
                        Long.toString(g.shape().k()), Long.toString(g.shape().batch()), esc(g.shape().dtype()),
                        Integer.toString(g.ops()), ms(g.deviceNs()),
                        g.tflops() == null ? "&ndash;" : String.format(Locale.ROOT, "%.3f", g.tflops())));
            }
        }
        w.write("</table>\n");
    }

    private static String gbps(Double v) {
        return v == null ? "&ndash;" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String row(int rank, String... cells) {
        StringBuilder b = new StringBuilder("<tr><td>").append(rank).append("</td>");
        for (String c : cells) {
            b.append("<td>").append(c).append("</td>");
        }
        return b.append("</tr>\n").toString();
    }

    static String ms(long ns) {
        return String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    private static String us(double ns) {
        return String.format(Locale.ROOT, "%.1f", ns / 1e3);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
