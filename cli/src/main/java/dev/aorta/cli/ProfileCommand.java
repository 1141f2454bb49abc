package dev.aorta.cli;

import dev.aorta.core.io.AtomicFiles;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.result.ChromeTrace;
import dev.aorta.workloads.result.ProfilePage;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.spi.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "profile", mixinStandardHelpOptions = true, description = {
        "Run one workload once and keep its device timeline: a Perfetto trace, an HTML page with one row per stream "
                + "next to the queue-switch and dispatch figures, and the result JSON.",
        "With --with nsys, the same run again under Nsight Systems (when nsys is installed)."})
final class ProfileCommand implements Callable<Integer> {
    /** Options of profile that the nsys run of aorta run must not get (they are profile's own). */
    private static final Set<String> OWN_OPTIONS = Set.of("-o", "--output-dir", "--with", "--kernel-timing");
    private final GpuSessionFactory gpu;

    @Parameters(index = "0", paramLabel = "WORKLOAD", description = "Workload name (aorta list).")
    String workloadName;

    @Option(names = {"-s", "--streams"}, description = "Workload streams (default: the workload's recommended count).")
    Integer streams;

    @Option(names = {"-o", "--output-dir"}, paramLabel = "DIR", defaultValue = "profiles",
            description = "Where the trace, page and result go (default: ${DEFAULT-VALUE}).")
    Path outputDir;

    @Option(names = "--with", paramLabel = "TOOL",
            description = "Also capture the same run with an external profiler: nsys (Nsight Systems) or rocprofv3.")
    String with;

    @Mixin
    HarnessOptionsMixin harness;

    @Spec
    CommandSpec spec;

    ProfileCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        Workload workload = WorkloadRegistry.onClassPath().create(workloadName);
        HarnessOptions options = harness.toOptions(streams == null ? workload.recommendedStreams() : streams);
        Harness.validate(workload, options);
        ExternalProfiler external = with == null ? null : ExternalProfiler.parse(with);
        RunResult result;
        try (GpuSession session = GpuEnvironment.open(gpu, options)) {
            result = new Harness(GpuEnvironment.recorded(), false).run(workload, options, session);
        }
        String stem = workload.name() + "_s" + options.streams();
        Path trace = outputDir.resolve(stem + "_trace.json");
        Path page = outputDir.resolve(stem + ".html");
        Path json = outputDir.resolve(stem + ".json");
        ChromeTrace.write(trace, result);
        AtomicFiles.write(page, out -> out.write(ProfilePage.html(result).getBytes(StandardCharsets.UTF_8)));
        ResultJson.write(json, ResultJson.toJson(result));
        Double switchNs = result.kernelTiming().switchOverhead().estimatedSwitchOverheadNs();
        System.out.printf(Locale.ROOT, "%s at %d streams: %s %s, estimated switch overhead %s (%s)%n",
                workload.name(), options.streams(), RunReport.fmt(result.throughput().value()),
                result.throughput().unit(), switchNs == null ? "n/a" : RunReport.fmt(switchNs / 1e3) + " us",
                result.kernelTiming().source().label());
        System.out.println("trace: " + trace + " (open in ui.perfetto.dev; one track per stream)");
        System.out.println("page: " + page);
        System.out.println("result: " + json);
        int code = result.correctness().problem() == null ? 0 : 1;
        if (result.correctness().problem() != null) {
            System.err.println("aorta profile: " + workload.name() + " computed a wrong result: "
                    + result.correctness().problem());
        }
        if (external != null) {
            int ext = capture(external, outputDir.resolve(stem + "_" + external.label));
            code = Math.max(code, ext);
        }
        return code;
    }

    /** The external tools, and why one may not be able to capture an aorta run. */
    enum ExternalProfiler {
        NSYS("nsys"), ROCPROFV3("rocprofv3");

        final String label;

        ExternalProfiler(String label) {
            this.label = label;
        }

        static ExternalProfiler parse(String text) {
            for (ExternalProfiler p : values()) {
                if (p.label.equalsIgnoreCase(text.trim())) {
                    return p;
                }
            }
            throw new IllegalArgumentException("--with " + text + ": expected nsys or rocprofv3");
        }
    }

    /** Runs {@code aorta run} with the same options under the tool; CUPTI stays off there (one tracer per process). */
    private int capture(ExternalProfiler tool, Path report) throws Exception {
        Path executable = onPath(tool.label);
        if (executable == null) {
            System.out.println(tool.label + ": not installed (no " + tool.label + " on PATH), so only aorta's own "
                    + "CUPTI profile above was made");
            return 0;
        }
        if (tool == ExternalProfiler.ROCPROFV3) {
            System.out.println("rocprofv3: found at " + executable + ", but aorta has no ROCm backend yet: its "
                    + "workloads run on CUDA, which rocprofv3 does not trace (scripts/rocprof_capture.sh says what it "
                    + "would run)");
            return 0;
        }
        List<String> argv = new ArrayList<>(List.of(executable.toString(), "profile", "--trace", "cuda,nvtx,osrt",
                "--force-overwrite", "true", "-o", report.toString()));
        argv.addAll(LaunchCommand.aortaCommand(System.getenv("AORTA_JAVA_OPTS")));
        argv.addAll(List.of("run", workloadName, "--kernel-timing", "event-pairs"));
        argv.addAll(forwardedArgs());
        System.out.println("nsys: " + String.join(" ", argv));
        Process p = new ProcessBuilder(argv).inheritIO().start();
        int rc = p.waitFor();
        if (rc != 0) {
            System.err.println("aorta profile: nsys exited with " + rc + "; its report may be missing");
            return 1;
        }
        System.out.println("nsys report: " + report + ".nsys-rep (open in Nsight Systems)");
        return 0;
    }

    /** This command's arguments, less the workload name and profile's own options, for aorta run. */
    private List<String> forwardedArgs() {
        List<String> given = spec.commandLine().getParseResult().originalArgs();
        int from = given.indexOf(workloadName) + 1;
        List<String> out = new ArrayList<>();
        for (int i = from; i < given.size(); i++) {
            String a = given.get(i);
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (OWN_OPTIONS.contains(name)) {
                if (!a.contains("=")) {
                    i++; // its value
                }
                continue;
            }
            out.add(a);
        }
        return out;
    }

    private static Path onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }
}
