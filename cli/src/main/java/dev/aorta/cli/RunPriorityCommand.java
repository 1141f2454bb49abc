package dev.aorta.cli;

import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.metrics.ScalingAnalysis;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

@Command(name = "run-priority", mixinStandardHelpOptions = true, description = "Run every workload of a priority tier, "
        + "at its recommended stream count or, with -s, at every listed count inside its range (a sweep per workload); "
        + "a failing workload is reported and the rest still run (exit 1 if any failed).")
final class RunPriorityCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Parameters(index = "0", paramLabel = "TIER", description = "P0, P1, P2, P3, all (the four tiers, as AORTA) or "
            + "untiered (comms_compute_overlap, launch_overhead).")
    String tier;

    @Option(names = {"-s", "--streams"}, split = ",", paramLabel = "N[,N...]",
            description = "Stream counts to sweep each workload over (AORTA: 1,2,4,8,16); counts outside a workload's "
                    + "range are skipped with a note. Default: each workload's recommended count.")
    List<Integer> streams;

    @Option(names = {"-o", "--output-dir"}, paramLabel = "DIR", description = "Write <workload>.json for each run here; "
            + "with -s <workload>_results.json, the sweep file.")
    Path outputDir;

    @Mixin
    HarnessOptionsMixin harness;

    RunPriorityCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    /**
     * One workload at one stream count: its result, or why it failed, and the wall time of the whole run (setup,
     * warmup, measured iterations, check, cleanup), which is what makes a tier long.
     */
    private record Outcome(Workload workload, int streams, RunResult result, String error, double wallSeconds) {
    }

    @Override
    public Integer call() throws Exception {
        if (!harness.params.isEmpty()) {
            throw new IllegalArgumentException("--param is per workload; use aorta run WORKLOAD --param ...");
        }
        WorkloadRegistry registry = WorkloadRegistry.onClassPath();
        List<Workload> workloads = "all".equalsIgnoreCase(tier)
                ? registry.all().stream().filter(w -> w.priority() != Priority.UNTIERED).toList()
                : registry.withPriority(Priority.parse(tier));
        if (workloads.isEmpty()) {
            throw new IllegalArgumentException("no workloads of priority " + tier + " on the class path");
        }
        List<List<Integer>> counts = new ArrayList<>();
        int runs = 0;
        for (Workload w : workloads) {
            List<Integer> c = List.of(w.recommendedStreams());
            if (streams != null) {
                StreamCountFilter filter = StreamCountFilter.of(w, streams);
                if (filter.note(w) != null) {
                    System.out.println(filter.note(w));
                }
                c = filter.kept();
            }
            counts.add(c);
            runs += c.size();
        }
        HarnessOptions base = harness.toOptions(1);
        List<Outcome> outcomes = new ArrayList<>();
        try (GpuSession session = GpuEnvironment.open(gpu, base);
             Progress progress = Progress.start("run-priority " + tier, runs, System.out)) {
            Harness runner = new Harness(GpuEnvironment.recorded(), false);
            for (int i = 0; i < workloads.size(); i++) {
                String name = workloads.get(i).name();
                List<RunResult> sweep = new ArrayList<>();
                for (int n : counts.get(i)) {
                    // a fresh instance per run, as sweep makes one
                    Workload w = registry.create(name);
                    progress.begin(name + " streams=" + n);
                    Outcome o = runOne(runner, w, n, base, session);
                    outcomes.add(o);
                    if (o.result() != null) {
                        sweep.add(o.result());
                    }
                    progress.step();
                }
                if (streams != null && outputDir != null && !sweep.isEmpty()) {
                    ScalingAnalysis scaling = ScalingAnalysis.of(sweep.stream().mapToInt(r -> r.options().streams())
                            .toArray(), sweep.stream().mapToDouble(r -> r.throughput().value()).toArray());
                    ResultJson.write(outputDir.resolve(name + "_results.json"), SweepCommand.toJson(name, sweep, scaling));
                }
            }
        }
        return summarize(outcomes);
    }

    private Outcome runOne(Harness runner, Workload w, int n, HarnessOptions base, GpuSession session)
            throws java.io.IOException {
        HarnessOptions options = base.withStreams(n).withDtype(w.usesDtype() ? base.dtype() : DType.FP32);
        long start = System.nanoTime();
        try {
            RunResult r = runner.run(w, options, session);
            if (streams == null && outputDir != null) {
                ResultJson.write(outputDir.resolve(w.name() + ".json"), ResultJson.toJson(r));
            }
            String wrong = r.correctness().problem();
            if (wrong != null) {
                System.err.println("aorta run-priority: " + w.name() + " at " + n + " streams computed a wrong result: "
                        + wrong);
            }
            if (!r.idleStreams().isEmpty()) {
                System.err.println("aorta run-priority: " + w.name() + ": " + RunReport.idle(r));
            }
            return new Outcome(w, n, r, wrong == null ? null : "wrong result: " + wrong, seconds(start));
        } catch (RuntimeException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            System.err.println("aorta run-priority: " + w.name() + " failed: " + message);
            if (harness.verbose) {
                e.printStackTrace();
            }
            return new Outcome(w, n, null, message, seconds(start));
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private int summarize(List<Outcome> outcomes) {
        System.out.printf(Locale.ROOT, "%n%-22s %-3s %8s %-28s %10s %10s %8s%n", "WORKLOAD", "PRI", "STREAMS",
                "THROUGHPUT", "P50 MS", "P99 MS", "WALL S");
        int failed = 0;
        Map<String, Double> perTier = new TreeMap<>();
        for (Outcome o : outcomes) {
            perTier.merge(o.workload().priority().label(), o.wallSeconds(), Double::sum);
            if (o.error() != null) {
                failed++;
                System.out.printf(Locale.ROOT, "%-22s %-3s %8d FAILED: %s (%.1f s)%n", o.workload().name(),
                        o.workload().priority().label(), o.streams(), o.error(), o.wallSeconds());
                continue;
            }
            RunResult r = o.result();
            System.out.printf(Locale.ROOT, "%-22s %-3s %8d %-28s %10s %10s %8.1f%n", r.workloadName(),
                    o.workload().priority().label(), r.options().streams(),
                    RunReport.fmt(r.throughput().value()) + " " + r.throughput().unit(),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p50()),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p99()), o.wallSeconds());
        }
        System.out.println();
        perTier.forEach((tier, s) -> System.out.printf(Locale.ROOT, "  tier %s: %.1f s wall%n", tier, s));
        System.out.printf(Locale.ROOT, "  all: %.1f s wall (setup, warmup, measured iterations, checks)%n",
                perTier.values().stream().mapToDouble(Double::doubleValue).sum());
        System.out.println("  THROUGHPUT in each workload's unit; P50/P99 = per-iteration device latency ("
                + harness.syncMode + ")." + (outputDir == null ? "" : " Results in " + outputDir + "."));
        long idle = outcomes.stream().filter(o -> o.result() != null && !o.result().idleStreams().isEmpty()).count();
        if (idle > 0) {
            System.out.println("  " + idle + " of " + outcomes.size() + " runs left streams without device work (said"
                    + " above).");
        }
        if (failed > 0) {
            System.out.println("  " + failed + " of " + outcomes.size() + " runs failed.");
            return 1;
        }
        return 0;
    }
}
