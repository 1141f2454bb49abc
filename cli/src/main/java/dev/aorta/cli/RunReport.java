package dev.aorta.cli;

import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.metrics.ConvoyEffect;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.KernelBreakdown;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.core.metric.SampleStats;

import dev.aorta.workloads.session.GpuTelemetry;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
        out.println(r.workloadName() + " on " + r.device().name() + " (device " + r.device().ordinal() + ", compute "
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
                "device time of the measured iterations: their sum under per_iteration sync (AORTA's total_time_ms),"
                        + " else from the first one's start to the last one's end; wall = host clock");
        RunResult.HostEnqueue h = r.hostEnqueue();
        line(out, "host enqueue", fmt(h.perIterationMs().mean()) + " ms/iteration, " + fmt(h.usPerLaunch())
                        + " us/launch, " + fmt(h.launchesPerSecond()) + " launches/s",
                "host time inside the workload's launch calls (" + launchCount(h)
                        + ", counted as they were made, untraced)");
        long untimed = r.kernelTiming().untimedLaunches();
        line(out, "per-stream busy ms", r.streams().stream()
                        .map(s -> "s" + s.index() + "=" + fmt(s.busyMs()))
                        .collect(Collectors.joining(" ")) + (untimed > 0 ? "  (incomplete: " + untimed
                        + " launches untimed, see the timing source)" : ""),
                "device time each stream had a kernel running, summed over the " + r.kernelTiming().capturedIterations()
                        + " traced iterations run after the measured ones (roles: " + r.streams().stream().map(RunResult.StreamStats::role)
                        .distinct().collect(Collectors.joining("/")) + ")");
        QueueSwitchOverhead sw = r.kernelTiming().switchOverhead();
        line(out, "queue switch", "inter-stream gaps n=" + sw.interGaps() + " mean " + fmt(sw.interGapsNs().mean() / 1e3)
                        + " us; intra-stream gaps n=" + sw.intraGaps() + " mean " + fmt(sw.intraGapsNs().mean() / 1e3)
                        + " us; estimated switch overhead " + switchOverheadUs(sw),
                "AORTA's estimate: idle gaps between consecutive kernels on different streams minus those on one stream");
        DispatchLatency d = r.kernelTiming().dispatchLatency();
        if (d.measured()) {
            line(out, "dispatch latency", "same-stream " + briefNs(d.sameStream()) + "; cross-stream "
                            + briefNs(d.crossStream()) + "; from enqueue " + briefNs(d.fromEnqueue()),
                    "us from a kernel's dependency (its stream predecessor, an event wait) ending to its start; "
                            + "from enqueue: it waited on nothing but its launch");
        } else {
            line(out, "dispatch latency", "not available", RunResult.KernelTiming.DISPATCH_NEEDS_QUEUED);
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
        for (KernelBreakdown.Entry k : r.kernelTiming().kernelClasses().stream().limit(TOP_KERNEL_CLASSES).toList()) {
            out.printf(Locale.ROOT, "    %-40s n=%-8d mean %-10s p95 %-10s total %s ms%n", shorten(k.name()), k.count(),
                    fmt(k.durationNs().mean() / 1e3), fmt(k.durationNs().p95() / 1e3), fmt(k.totalNs() / 1e6));
        }
        var m = r.memory().atEnd();
        line(out, "memory GB", "peak allocated " + gb(m.peakAllocatedBytes()) + ", final allocated "
                        + gb(m.allocatedBytes()) + ", peak reserved " + gb(m.peakReservedBytes()),
                "device memory by the runtime's accounting (reserved = held from the driver)");
        if (!r.workloadResults().isEmpty()) {
            out.println("  " + r.workloadName() + " results (device time):");
            printResults(r.workloadResults(), "    ", out);
        }
        line(out, "gpu telemetry", telemetry(r.telemetry().before()) + " -> " + telemetry(r.telemetry().after()),
                "NVML before setup -> after the measured iterations (SM clock, power, temperature)");
        if (r.correctness().checked()) {
            line(out, "correctness", r.correctness().problem() == null ? "ok" : "FAILED: " + r.correctness().problem(),
                    "the workload's own check of its output");
        }
        if (r.baselineLoop() != null) {
            line(out, "baseline loop", fmt(r.baselineLoop().throughput().value()) + " "
                            + r.baselineLoop().throughput().unit() + ", ratio " + fmt(r.baselineLoop().ratio()),
                    "the same work as a plain loop on one stream in this process; ratio = harness / plain");
        }
        List<String> notes = interpretation(r);
        if (!notes.isEmpty()) {
            out.println("  interpretation:");
            notes.forEach(n -> out.println("    - " + n));
        }
    }

    /** Default of CUDA_DEVICE_MAX_CONNECTIONS when unset. */
    static final int DEFAULT_MAX_CONNECTIONS = 8;

    /** Plain-language reading of the numbers, each line from a rule stated in it. */
    static List<String> interpretation(RunResult r) {
        List<String> notes = new ArrayList<>();
        if (!r.idleStreams().isEmpty()) {
            notes.add(idle(r));
        }
        String set = r.envVars().get("CUDA_DEVICE_MAX_CONNECTIONS");
        int connections = set == null ? DEFAULT_MAX_CONNECTIONS : parseOr(set, DEFAULT_MAX_CONNECTIONS);
        if (r.options().streams() > connections) {
            notes.add(r.options().streams() + " streams share " + connections + " hardware queues "
                    + "(CUDA_DEVICE_MAX_CONNECTIONS): unrelated streams can wait on each other; try --max-connections 32");
        }
        if (r.latencyMs() != null && r.options().syncMode() == dev.aorta.workloads.harness.SyncMode.PER_ITERATION) {
            double hostShare = r.hostEnqueue().perIterationMs().mean() / r.latencyMs().mean();
            if (hostShare >= 0.8) {
                notes.add(String.format(Locale.ROOT, "host-bound: enqueuing takes %.0f%% of an iteration's device "
                        + "time, so the device mostly waits for launches", 100 * Math.min(hostShare, 1)));
            }
        }
        QueueSwitchOverhead sw = r.kernelTiming().switchOverhead();
        if (sw.estimatedSwitchOverheadNs() != null && sw.estimatedSwitchOverheadNs() > 0) {
            notes.add("the device idles " + fmt(sw.estimatedSwitchOverheadNs() / 1e3) + " us longer between kernels of different "
                    + "streams than between kernels of one stream (estimated queue switch overhead)");
        }
        ConvoyEffect c = r.kernelTiming().convoy();
        if (c != null && c.available() && c.behindBlockingUs() != null && c.otherwiseUs() != null
                && c.otherwiseUs().mean() > 0) {
            notes.add(String.format(Locale.ROOT, "convoy: %s kernels wait %.1fx longer while a %s kernel runs",
                    c.waitingRole(), c.behindBlockingUs().mean() / c.otherwiseUs().mean(), c.blockingRole()));
        }
        if (r.baselineLoop() != null && r.baselineLoop().ratio() < 0.97) {
            notes.add("the harness reaches " + fmt(100 * r.baselineLoop().ratio()) + "% of a plain loop's throughput");
        }
        return notes;
    }

    /** The line that says which of a run's streams did no device work. */
    static String idle(RunResult r) {
        return RunResult.describe(r.idleStreams()) + " did no device work in the traced iterations: the workload"
                + " leaves " + (r.idleStreams().size() == 1 ? "it" : "them") + " idle at " + r.options().streams()
                + " streams (see its parameters)";
    }

    private static int parseOr(String text, int fallback) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static String iterationMeaning(RunResult r) {
        return switch (r.options().syncMode()) {
            case PER_ITERATION -> "device time of each iteration from an idle device (events)";
            case END_ONLY -> "device time between consecutive iterations' completions, iterations back to back";
            case NONE -> "";
        };
    }

    /** The workload's own figures: one line per value, nested maps indented under their key. */
    private static void printResults(Map<?, ?> results, String indent, PrintStream out) {
        results.forEach((k, v) -> {
            if (v instanceof Map<?, ?> nested) {
                out.println(indent + k + ":");
                printResults(nested, indent + "  ", out);
            } else {
                out.printf(Locale.ROOT, "%s%-24s %s%n", indent, k, v instanceof Double d ? fmt(d) : v);
            }
        });
    }

    private static String telemetry(GpuTelemetry t) {
        if (!t.available()) {
            return "unavailable (" + t.unavailable() + ")";
        }
        return value(t, "sm_clock_mhz", " MHz") + ", " + value(t, "power_w", " W") + ", " + value(t, "temperature_c", " C");
    }

    private static String value(GpuTelemetry t, String key, String unit) {
        Number v = t.value(key);
        if (v == null) {
            return "?";
        }
        return (v instanceof Integer || v instanceof Long ? v.toString() : fmt(v.doubleValue())) + unit;
    }

    static void line(PrintStream out, String name, String value, String meaning) {
        out.printf(Locale.ROOT, "  %-18s %s%n  %-18s   = %s%n", name, value, "", meaning);
    }

    /** The estimate in µs, n/a when undefined (gaps of one kind missing: docs/metrics.md#queue-switch-overhead). */
    static String switchOverheadUs(QueueSwitchOverhead sw) {
        Double ns = sw.estimatedSwitchOverheadNs();
        return ns == null ? "n/a" : fmt(ns / 1e3) + " us";
    }

    /** ns statistics, shown in µs. */
    private static String briefNs(SampleStats ns) {
        return brief(ns.count() == 0 ? null : ns.scaled(1e-3));
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

    /** The measured launches per iteration, with their range when iterations enqueued different numbers of calls. */
    private static String launchCount(RunResult.HostEnqueue h) {
        return h.launchCountVaried()
                ? "mean " + fmt(h.launchesPerIteration()) + " launches per iteration, varying " + h.minLaunches()
                        + "-" + h.maxLaunches() + " between iterations"
                : h.maxLaunches() + " launches per iteration";
    }

    static String fmt(double v) {
        double a = Math.abs(v);
        if (a != 0 && (a < 0.01 || a >= 1e7)) {
            return String.format(Locale.ROOT, "%.3g", v);
        }
        return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.3f", v);
    }
}
