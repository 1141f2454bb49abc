package dev.aorta.cli;

import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.metrics.ConvoyEffect;
import dev.aorta.workloads.metrics.DispatchLatency;
import dev.aorta.workloads.metrics.KernelClassStats;
import dev.aorta.workloads.metrics.SampleStats;
import dev.aorta.workloads.metrics.SwitchOverhead;

import java.io.PrintStream;
import java.util.Locale;
import java.util.stream.Collectors;

/** The human-readable report of a run: every number with a line saying what it means. */
final class RunReport {
    private static final int TOP_KERNEL_CLASSES = 5;

    private RunReport() {
    }

    static String options(HarnessOptions o) {
        return "streams=" + o.streams() + " iterations=" + o.iterations() + " warmup=" + o.warmup()
                + " sync_mode=" + o.syncMode().label() + " priorities=" + o.priorityMode().label()
                + " dtype=" + o.dtype().label() + " device=" + o.device() + " kernel_timing=" + o.kernelTiming().label()
                + (o.params().isEmpty() ? "" : " params=" + o.params())
                + (o.maxConnections() == null ? "" : " max_connections=" + o.maxConnections());
    }

    static void print(RunResult r, PrintStream out) {
        out.println(r.workloadName() + " on " + r.device().name() + " (device " + r.device().index() + ", compute "
                + r.device().computeCapability() + ")");
        String connections = r.envVars().get("CUDA_DEVICE_MAX_CONNECTIONS");
        out.println("  options: " + options(r.options()) + " CUDA_DEVICE_MAX_CONNECTIONS="
                + (connections == null ? "unset (driver default 8)" : connections));
        out.println("  timing source: " + r.kernelTiming().source().label() + " - " + r.kernelTiming().sourceNote());
        out.println();
        line(out, "throughput", fmt(r.throughput().value()) + " " + r.throughput().unit(),
                "work per second of device time over all measured iterations");
        if (r.latencyMs() == null) {
            line(out, "latency", "not defined", "sync mode none waits only once, so no iteration has its own time");
        } else {
            SampleStats l = r.latencyMs();
            line(out, "latency ms", "mean " + fmt(l.mean()) + "  p50 " + fmt(l.p50()) + "  p95 " + fmt(l.p95())
                    + "  p99 " + fmt(l.p99()) + "  min " + fmt(l.min()) + "  max " + fmt(l.max()) + "  std "
                    + fmt(l.std()), iterationMeaning(r));
        }
        line(out, "total time", fmt(r.totalTimeMs()) + " ms (wall " + fmt(r.wallTimeMs()) + " ms)",
                "device time from the first measured iteration's start to the last one's end; wall = host clock");
        RunResult.HostEnqueue h = r.hostEnqueue();
        line(out, "host enqueue", fmt(h.perIterationMs().mean()) + " ms/iteration, " + fmt(h.usPerLaunch())
                        + " us/launch, " + fmt(h.launchesPerSecond()) + " launches/s",
                "host time inside the workload's launch calls (" + h.launchesPerIteration()
                        + " launches per iteration" + (h.excludedIterations() > 0 ? ", " + h.excludedIterations()
                        + " event-pair-sampled iterations left out" : "") + ")");
        line(out, "per-stream busy ms", r.streams().stream()
                        .map(s -> "s" + s.index() + "=" + fmt(s.busyMs()))
                        .collect(Collectors.joining(" ")),
                "device time each stream had a kernel running, over the " + r.kernelTiming().capturedIterations()
                        + " captured iterations (roles: " + r.streams().stream().map(RunResult.StreamStats::role)
                        .distinct().collect(Collectors.joining("/")) + ")");
        SwitchOverhead sw = r.kernelTiming().switchOverhead();
        line(out, "queue switch", "inter-stream gaps n=" + sw.inter().count() + " mean " + fmt(sw.inter().meanUs())
                        + " us; intra-stream gaps n=" + sw.intra().count() + " mean " + fmt(sw.intra().meanUs())
                        + " us; estimated switch overhead " + fmt(sw.estimatedOverheadUs()) + " us",
                "AORTA's estimate: idle gaps between consecutive kernels on different streams minus those on one stream");
        DispatchLatency d = r.kernelTiming().dispatchLatency();
        if (d.available()) {
            line(out, "dispatch latency", "same-stream " + brief(d.sameStreamUs()) + "; cross-stream "
                            + brief(d.crossStreamUs()),
                    "us from a queued kernel becoming ready to its start, by whether the device came from the same stream");
        } else {
            line(out, "dispatch latency", "not available", d.unavailableReason());
        }
        ConvoyEffect c = r.kernelTiming().convoy();
        if (c != null) {
            if (c.available()) {
                line(out, "convoy", c.waitingRole() + " kernels waited " + brief(c.behindBlockingUs()) + " while a "
                                + c.blockingRole() + " kernel ran, " + brief(c.otherwiseUs()) + " otherwise",
                        "us from ready to start; a large first number next to a small second is the convoy effect");
            } else {
                line(out, "convoy", "not available", c.unavailableReason());
            }
        }
        out.println("  kernel classes (most device time first; durations in us):");
        for (KernelClassStats k : r.kernelTiming().kernelClasses().stream().limit(TOP_KERNEL_CLASSES).toList()) {
            out.printf(Locale.ROOT, "    %-40s n=%-8d mean %-10s p95 %-10s total %s ms%n", shorten(k.name()), k.count(),
                    fmt(k.durationUs().mean()), fmt(k.durationUs().p95()), fmt(k.totalMs()));
        }
        var m = r.memory().atEnd();
        line(out, "memory GB", "peak allocated " + gb(m.peakAllocatedBytes()) + ", final allocated "
                        + gb(m.allocatedBytes()) + ", peak reserved " + gb(m.peakReservedBytes()),
                "device memory by the runtime's accounting (reserved = held from the driver)");
        if (r.correctness().checked()) {
            line(out, "correctness", r.correctness().problem() == null ? "ok" : "FAILED: " + r.correctness().problem(),
                    "the workload's own check of its output");
        }
        if (r.baselineLoop() != null) {
            line(out, "baseline loop", fmt(r.baselineLoop().throughput().value()) + " "
                            + r.baselineLoop().throughput().unit() + ", ratio " + fmt(r.baselineLoop().ratio()),
                    "the same work as a plain loop on one stream in this process; ratio = harness / plain");
        }
    }

    private static String iterationMeaning(RunResult r) {
        return switch (r.options().syncMode()) {
            case PER_ITERATION -> "device time of each iteration from an idle device (events)";
            case END_ONLY -> "device time between consecutive iterations' completions, iterations back to back";
            case NONE -> "";
        };
    }

    static void line(PrintStream out, String name, String value, String meaning) {
        out.printf(Locale.ROOT, "  %-18s %s%n  %-18s   = %s%n", name, value, "", meaning);
    }

    private static String brief(SampleStats s) {
        return s == null ? "n=0" : "mean " + fmt(s.mean()) + " p95 " + fmt(s.p95()) + " (n=" + s.count() + ")";
    }

    private static String shorten(String name) {
        return name.length() <= 40 ? name : name.substring(0, 37) + "...";
    }

    private static String gb(long bytes) {
        return fmt(bytes / (1024.0 * 1024 * 1024));
    }

    static String fmt(double v) {
        double a = Math.abs(v);
        if (a != 0 && (a < 0.01 || a >= 1e7)) {
            return String.format(Locale.ROOT, "%.3g", v);
        }
        return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.3f", v);
    }
}
