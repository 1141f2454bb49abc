package dev.aorta.cli;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.result.ResultJson;
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
import java.util.concurrent.Callable;

@Command(name = "run-priority", mixinStandardHelpOptions = true, description = "Run every workload of a priority tier at its recommended stream count; "
        + "a failing workload is reported and the rest still run (exit 1 if any failed).")
final class RunPriorityCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Parameters(index = "0", paramLabel = "TIER", description = "P0, P1, P2, P3 or all.")
    String tier;

    @Option(names = "--output-dir", paramLabel = "DIR", description = "Write <workload>.json for each run here.")
    Path outputDir;

    @Mixin
    HarnessOptionsMixin harness;

    RunPriorityCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    private record Outcome(Workload workload, RunResult result, String error) {
    }

    @Override
    public Integer call() throws Exception {
        if (!harness.params.isEmpty()) {
            throw new IllegalArgumentException("--param is per workload; use aorta run WORKLOAD --param ...");
        }
        WorkloadRegistry registry = WorkloadRegistry.onClassPath();
        List<Workload> workloads = "all".equalsIgnoreCase(tier) ? registry.all()
                : registry.withPriority(Priority.parse(tier));
        if (workloads.isEmpty()) {
            throw new IllegalArgumentException("no workloads of priority " + tier + " on the class path");
        }
        HarnessOptions base = harness.toOptions(1);
        List<Outcome> outcomes = new ArrayList<>();
        try (GpuSession session = GpuEnvironment.open(gpu, base);
             Progress progress = Progress.start("run-priority " + tier, workloads.size(), System.out)) {
            Harness runner = new Harness(GpuEnvironment.recorded(), false);
            for (Workload w : workloads) {
                progress.begin(w.name() + " streams=" + w.recommendedStreams());
                HarnessOptions options = base.withStreams(w.recommendedStreams())
                        .withDtype(w.usesDtype() ? base.dtype() : DType.FP32);
                try {
                    RunResult r = runner.run(w, options, session);
                    if (outputDir != null) {
                        ResultJson.write(outputDir.resolve(w.name() + ".json"), ResultJson.toJson(r));
                    }
                    String wrong = r.correctness().problem();
                    if (wrong != null) {
                        System.err.println("aorta run-priority: " + w.name() + " computed a wrong result: " + wrong);
                    }
                    outcomes.add(new Outcome(w, r, wrong == null ? null : "wrong result: " + wrong));
                } catch (RuntimeException e) {
                    String message = e.getMessage() == null ? e.toString() : e.getMessage();
                    System.err.println("aorta run-priority: " + w.name() + " failed: " + message);
                    if (harness.verbose) {
                        e.printStackTrace();
                    }
                    outcomes.add(new Outcome(w, null, message));
                }
                progress.step();
            }
        }
        return summarize(outcomes);
    }

    private int summarize(List<Outcome> outcomes) {
        System.out.printf(Locale.ROOT, "%n%-22s %-3s %8s %-28s %10s %10s%n", "WORKLOAD", "PRI", "STREAMS", "THROUGHPUT",
                "P50 MS", "P99 MS");
        int failed = 0;
        for (Outcome o : outcomes) {
            if (o.error() != null) {
                failed++;
                System.out.printf(Locale.ROOT, "%-22s %-3s %8d FAILED: %s%n", o.workload().name(), o.workload().priority(),
                        o.workload().recommendedStreams(), o.error());
                continue;
            }
            RunResult r = o.result();
            System.out.printf(Locale.ROOT, "%-22s %-3s %8d %-28s %10s %10s%n", r.workloadName(), o.workload().priority(),
                    r.options().streams(), RunReport.fmt(r.throughput().value()) + " " + r.throughput().unit(),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p50()),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p99()));
        }
        System.out.println();
        System.out.println("  THROUGHPUT in each workload's unit; P50/P99 = per-iteration device latency ("
                + harness.syncMode + ")." + (outputDir == null ? "" : " Results in " + outputDir + "."));
        if (failed > 0) {
            System.out.println("  " + failed + " of " + outcomes.size() + " workloads failed.");
            return 1;
        }
        return 0;
    }
}
