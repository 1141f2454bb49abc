package dev.aorta.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.metrics.ScalingAnalysis;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.spi.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "sweep", mixinStandardHelpOptions = true, description = "Run one workload at several stream counts and analyse how throughput scales.")
final class SweepCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Parameters(index = "0", paramLabel = "WORKLOAD", description = "Workload name (aorta list).")
    String workloadName;

    @Option(names = {"-s", "--streams"}, split = ",", paramLabel = "N[,N...]", defaultValue = "1,2,4,8,16",
            description = "Stream counts to run (default: ${DEFAULT-VALUE}).")
    List<Integer> streams;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the sweep JSON here (atomically).")
    Path output;

    @Mixin
    HarnessOptionsMixin harness;

    SweepCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        Workload probe = WorkloadRegistry.onClassPath().create(workloadName);
        if (WorkloadCommandArgs.commandOf(probe.name()) != null) {
            // the registry's instance: what the harness can sweep without the command's own options
            System.out.println("note: " + probe.name() + " sweeps under the harness with its -p parameters; aorta "
                    + WorkloadCommandArgs.commandOf(probe.name()) + " has its full options");
        }
        StreamCountFilter filter = StreamCountFilter.of(probe, streams);
        if (filter.kept().isEmpty()) {
            throw new IllegalArgumentException("--streams " + streams + ": none is inside the range of " + probe.name()
                    + ": " + probe.streamRange() + " streams");
        }
        if (filter.note(probe) != null) {
            System.out.println(filter.note(probe));
        }
        List<Integer> counts = filter.kept();
        for (int n : counts) {
            Harness.validate(probe, harness.toOptions(n));
        }
        HarnessOptions first = harness.toOptions(counts.getFirst());
        System.out.println("sweep " + probe.name() + " over streams " + counts + "  (" + RunReport.options(first)
                .replaceFirst("streams=\\d+ ", "") + ")");
        List<RunResult> results = new ArrayList<>();
        try (GpuSession session = GpuEnvironment.open(gpu, first);
             Progress progress = Progress.start("sweep " + probe.name(), counts.size(), System.out)) {
            Harness runner = new Harness(GpuEnvironment.recorded(), false);
            for (int n : counts) {
                progress.begin(probe.name() + " streams=" + n);
                Workload workload = WorkloadRegistry.onClassPath().create(workloadName);
                results.add(runner.run(workload, harness.toOptions(n), session));
                progress.step();
            }
        }
        ScalingAnalysis scaling = ScalingAnalysis.of(counts.stream().mapToInt(Integer::intValue).toArray(),
                results.stream().mapToDouble(r -> r.throughput().value()).toArray());
        print(results, scaling);
        if (output != null) {
            ResultJson.write(output, toJson(probe.name(), results, scaling));
            System.out.println("result: " + output);
        }
        boolean correct = true;
        for (RunResult r : results) {
            if (r.correctness().problem() != null) {
                System.err.println("aorta sweep: " + r.workloadName() + " at " + r.options().streams()
                        + " streams computed a wrong result: " + r.correctness().problem());
                correct = false;
            }
            if (!r.idleStreams().isEmpty()) {
                System.err.println("aorta sweep: " + r.workloadName() + ": " + RunReport.idle(r));
            }
        }
        return correct ? 0 : 1;
    }

    private static void print(List<RunResult> results, ScalingAnalysis scaling) {
        String unit = results.getFirst().throughput().unit();
        System.out.printf(Locale.ROOT, "%n%8s %16s %11s %11s %11s %14s%n", "STREAMS", "THROUGHPUT", "EFFICIENCY",
                "P50 MS", "P99 MS", "SWITCH US");
        for (int i = 0; i < results.size(); i++) {
            RunResult r = results.get(i);
            ScalingAnalysis.Point p = scaling.points().get(i);
            System.out.printf(Locale.ROOT, "%8d %16s %11s %11s %11s %14s%n", p.streams(),
                    RunReport.fmt(p.throughput()), RunReport.fmt(p.efficiency()),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p50()),
                    r.latencyMs() == null ? "-" : RunReport.fmt(r.latencyMs().p99()),
                    RunReport.switchOverheadUs(r.kernelTiming().switchOverhead()));
        }
        System.out.println();
        System.out.println("  THROUGHPUT in " + unit + "; EFFICIENCY = throughput / (first point's throughput per "
                + "stream x streams): 1.0 is linear scaling; P50/P99 = per-iteration device latency; SWITCH = AORTA's "
                + "estimated switch overhead from kernel gaps.");
        System.out.println("  inflection point: " + (scaling.inflectionStreams() == null
                ? "none (efficiency never fell below 0.8 x the previous point's)"
                : scaling.inflectionStreams() + " streams (first count whose efficiency fell below 0.8 x the previous "
                + "point's)") + "; best throughput at " + scaling.bestStreams() + " streams");
    }

    static ObjectNode toJson(String workload, List<RunResult> results, ScalingAnalysis scaling) {
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        root.put("schema", ResultJson.SWEEP_SCHEMA);
        root.put("timestamp", Instant.now().toString());
        root.put("workload", workload);
        ArrayNode runs = root.putArray("results");
        results.forEach(r -> runs.add(ResultJson.toJson(r)));
        ObjectNode analysis = root.putObject("analysis");
        analysis.put("throughput_unit", results.getFirst().throughput().unit());
        ArrayNode points = analysis.putArray("scaling");
        for (ScalingAnalysis.Point p : scaling.points()) {
            ObjectNode n = points.addObject();
            n.put("streams", p.streams());
            n.put("throughput", p.throughput());
            n.put("efficiency", p.efficiency());
        }
        if (scaling.inflectionStreams() == null) {
            analysis.putNull("inflection_streams");
        } else {
            analysis.put("inflection_streams", scaling.inflectionStreams());
        }
        analysis.put("best_streams", scaling.bestStreams());
        analysis.put("definition", "efficiency_i = tp_i / (tp_0 / s_0 * s_i); inflection = first s_i with "
                + "efficiency_i < 0.8 * efficiency_(i-1)");
        ObjectNode env = root.putObject("environment");
        env.put("java", Runtime.version().toString());
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        env.set("device_info", ResultJson.toJson(results.getFirst()).path("metadata").path("device_info"));
        env.set("env_vars", ResultJson.MAPPER.valueToTree(results.getFirst().envVars()));
        return root;
    }
}
