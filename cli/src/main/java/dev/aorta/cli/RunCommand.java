package dev.aorta.cli;

import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.result.ChromeTrace;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.spi.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "run", mixinStandardHelpOptions = true, description = "Run one workload and report throughput, latency, per-kernel device timing and memory.")
final class RunCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Parameters(index = "0", paramLabel = "WORKLOAD", description = "Workload name (aorta list).")
    String workloadName;

    @Option(names = {"-s", "--streams"}, description = "Workload streams (default: the workload's recommended count).")
    Integer streams;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the result JSON here (atomically).")
    Path output;

    @Option(names = "--profile", description = "Also write a Perfetto/Chrome-trace JSON of the measured iterations.")
    boolean profile;

    @Option(names = "--profile-dir", paramLabel = "DIR", defaultValue = "profiles",
            description = "Where --profile writes its trace (default: ${DEFAULT-VALUE}).")
    Path profileDir;

    @Option(names = "--baseline-loop", hidden = true,
            description = "Also time the workload's plain one-stream loop and report the ratio (acceptance check).")
    boolean baselineLoop;

    @Mixin
    HarnessOptionsMixin harness;

    /** Options of the workloads that are commands of their own (comms_compute_overlap, launch_overhead). */
    @Unmatched
    List<String> workloadOptions = new ArrayList<>();

    @Spec
    CommandSpec spec;

    RunCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        String command = WorkloadCommandArgs.commandOf(workloadName);
        if (command != null) {
            return AortaCli.run(gpu, WorkloadCommandArgs.translate(workloadName, command,
                    spec.commandLine().getParseResult(), workloadOptions, streams).toArray(String[]::new));
        }
        Workload workload = WorkloadRegistry.onClassPath().create(workloadName);
        if (!workloadOptions.isEmpty()) {
            throw new IllegalArgumentException("unknown option " + workloadOptions.getFirst() + " for " + workload.name()
                    + " (aorta run --help lists the options; workload parameters are -p NAME=VALUE: "
                    + (workload.parameters().isEmpty() ? "it has none" : workload.parameters().stream()
                    .map(p -> p.name()).toList()) + ")");
        }
        HarnessOptions options = harness.toOptions(streams == null ? workload.recommendedStreams() : streams);
        Harness.validate(workload, options);
        if (baselineLoop && !workload.hasBaselineLoop()) {
            throw new IllegalArgumentException("--baseline-loop: " + workload.name() + " has no baseline loop");
        }
        RunResult result;
        try (GpuSession session = GpuEnvironment.open(gpu, options)) {
            result = new Harness(GpuEnvironment.recorded(), baselineLoop).run(workload, options, session);
        }
        RunReport.print(result, System.out);
        if (output != null) {
            Path file = OverlapCommand.rankFile(output, DistributedEnvironment.current());
            ResultJson.write(file, ResultJson.toJson(result));
            System.out.println("result: " + file);
        }
        if (profile) {
            Path trace = OverlapCommand.rankFile(profileDir.resolve(workload.name() + "_s" + options.streams()
                    + "_trace.json"), DistributedEnvironment.current());
            ChromeTrace.write(trace, result);
            System.out.println("trace: " + trace + " (open in ui.perfetto.dev; one track per stream)");
        }
        if (result.correctness().problem() != null) {
            System.err.println("aorta run: " + workload.name() + " computed a wrong result: "
                    + result.correctness().problem());
            return 1;
        }
        return 0;
    }
}
