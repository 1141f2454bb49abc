package dev.aorta.cli;

import dev.aorta.analyzer.metrics.Breakdowns;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.CopyBandwidth;
import dev.aorta.core.metric.CriticalPath;
import dev.aorta.core.metric.GemmThroughput;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.KernelLaunchStatistics;
import dev.aorta.core.metric.SampleStats;

import java.io.PrintWriter;
import java.util.List;

import static dev.aorta.cli.CliOptions.NO_LOCALE;

/** The text lines of a window's {@link Breakdowns} in {@code aorta analyze} (docs/analyzer.md#reading-the-text-output). */
final class BreakdownsText {
    private BreakdownsText() {
    }

    /** Prints the sections; at most {@code streamCap} streams' idle lines, those idle longest, the rest summed on one. */
    static void print(PrintWriter out, Breakdowns b, int streamCap) {
        List<Breakdowns.StreamIdle> shown = b.idle().size() <= streamCap ? b.idle() : b.idle().stream()
                .sorted((s, t) -> Long.compare(t.breakdown().idleNs(), s.breakdown().idleNs()))
                .limit(streamCap).toList();
        for (Breakdowns.StreamIdle s : shown) {
            IdleTimeBreakdown i = s.breakdown();
            out.printf(NO_LOCALE, "  idle stream %-10s %s: host wait %s (%d gaps), kernel wait %s (%d), other %s (%d)%n",
                    s.label(), ms(i.idleNs()), ms(i.hostWaitNs()), i.hostWaitGaps(), ms(i.kernelWaitNs()),
                    i.kernelWaitGaps(), ms(i.otherNs()), i.otherGaps());
        }
        if (shown.size() < b.idle().size()) {
            List<Breakdowns.StreamIdle> rest = b.idle().stream().filter(s -> !shown.contains(s)).toList();
            long[] sums = new long[3];
            rest.forEach(s -> {
                sums[0] += s.breakdown().hostWaitNs();
                sums[1] += s.breakdown().kernelWaitNs();
                sums[2] += s.breakdown().otherNs();
            });
            out.printf(NO_LOCALE, "  idle of %d more streams, summed: host wait %s, kernel wait %s, other %s%n",
                    rest.size(), ms(sums[0]), ms(sums[1]), ms(sums[2]));
        }
        if (b.apiCallNames() > 0) {
            out.printf(NO_LOCALE, "  API calls: %d names%s%n", b.apiCallNames(),
                    b.apiCallNames() > b.apiCalls().size() ? ", the " + b.apiCalls().size() + " with most time:" : ":");
            for (ApiStatistics.Entry e : b.apiCalls()) {
                out.printf(NO_LOCALE, "    %7d x  total %s  mean %.1f us  p95 %.1f us  max %.1f us  %5.1f%%  %s%n",
                        e.count(), ms(e.totalNs()), e.durationNs().mean() / 1e3, e.durationNs().p95() / 1e3,
                        e.durationNs().max() / 1e3, 100 * e.share(), e.name());
            }
        }
        KernelLaunchStatistics k = b.launches();
        if (k.launches() > 0) {
            out.printf(NO_LOCALE, "  kernel launches: n=%d  cpu %s; gpu %s; launch delay %s%n", k.launches(),
                    stats(k.cpuDurationNs()), stats(k.gpuDurationNs()), stats(k.launchDelayNs()));
            out.printf(NO_LOCALE, "    %d short (gpu < cpu), %d runtime outliers (cpu > %.0f us),"
                            + " %d launch delay outliers (> %.0f us)%n", k.shortKernels(), k.runtimeOutliers(),
                    KernelLaunchStatistics.DEFAULT_RUNTIME_CUTOFF_NS / 1e3, k.launchDelayOutliers(),
                    KernelLaunchStatistics.DEFAULT_LAUNCH_DELAY_CUTOFF_NS / 1e3);
        }
        for (CopyBandwidth c : b.copies()) {
            out.printf(NO_LOCALE, "  copies %-7s %d x  %.3f MB in %s  %s%s%n", c.direction().label(), c.copies(),
                    c.bytes() / 1e6, ms(c.durationNs()),
                    c.gbps() == null ? "bandwidth n/a" : String.format(NO_LOCALE, "%.2f GB/s (per copy p50 %.2f,"
                            + " max %.2f)", c.gbps(), c.perCopyGbps().p50(), c.perCopyGbps().max()),
                    c.unsized() == 0 ? "" : "  (" + c.unsized() + " without bytes or duration)");
        }
        for (CollectiveBandwidth c : b.collectives()) {
            out.printf(NO_LOCALE, "  collective %-14s %s  %s  %d x  total %s  mean %.1f us  algbw %s  busbw %s%n",
                    c.kind().label(), c.messageBytes() < 0 ? "size n/a" : bytes(c.messageBytes()), c.groupSize() < 0 ? "ranks n/a" : c.groupSize() + " ranks",
                    c.count(), ms(c.totalNs()), c.meanNs() / 1e3, gbps(c.algbwGbps()), gbps(c.busbwGbps()));
        }
        CriticalPath p = b.criticalPath();
        if (p != null && p.lengthNs() > 0) {
            out.printf(NO_LOCALE, "  critical path %s: host %s (%.1f%%, %d calls), device %s (%.1f%%, %d activities),"
                            + " launch %s (%.1f%%)%n", ms(p.lengthNs()), ms(p.hostNs()), 100.0 * p.hostNs() / p.lengthNs(),
                    p.hostCalls(), ms(p.deviceNs()), 100.0 * p.deviceNs() / p.lengthNs(), p.deviceActivities(),
                    ms(p.launchNs()), 100.0 * p.launchNs() / p.lengthNs());
        }
        for (GemmThroughput g : b.gemms()) {
            out.printf(NO_LOCALE, "  gemm M=%d N=%d K=%d%s %s  %d x  %.3g GFLOP each  device %s  %s%n",
                    g.shape().m(), g.shape().n(), g.shape().k(), g.shape().batch() == 1 ? "" : " batch=" + g.shape().batch(),
                    g.shape().dtype().isEmpty() ? "" : g.shape().dtype(), g.ops(), g.flopsPerOp() / 1e9,
                    ms(g.deviceNs()), g.tflops() == null ? "TFLOP/s n/a"
                            : String.format(NO_LOCALE, "%.4f TFLOP/s", g.tflops()));
        }
    }

    /** A message size readable from a few bytes to gigabytes (1 MB = 10⁶ B, as the bandwidths count). */
    static String bytes(long b) {
        return b < 1_000 ? b + " B" : b < 1_000_000 ? String.format(NO_LOCALE, "%.3f kB", b / 1e3)
                : String.format(NO_LOCALE, "%.3f MB", b / 1e6);
    }

    private static String gbps(Double v) {
        return v == null ? "n/a" : String.format(NO_LOCALE, "%.2f GB/s", v);
    }

    private static String stats(SampleStats s) {
        return String.format(NO_LOCALE, "mean %.1f us p50 %.1f us p95 %.1f us", s.mean() / 1e3, s.p50() / 1e3,
                s.p95() / 1e3);
    }

    private static String ms(long ns) {
        return String.format(NO_LOCALE, "%.3f ms", ns / 1e6);
    }
}
