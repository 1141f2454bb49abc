package dev.aorta.cli;

import dev.aorta.workloads.gpu.GpuSession;
import dev.aorta.workloads.gpu.GpuSessionFactory;
import dev.aorta.workloads.launchoverhead.CodebookShape;
import dev.aorta.workloads.launchoverhead.CorrectnessCheck;
import dev.aorta.workloads.launchoverhead.CudaCodebookDevice;
import dev.aorta.workloads.launchoverhead.LaunchOverheadJson;
import dev.aorta.workloads.launchoverhead.LaunchOverheadOptions;
import dev.aorta.workloads.launchoverhead.LaunchOverheadReport;
import dev.aorta.workloads.launchoverhead.LaunchOverheadResult;
import dev.aorta.workloads.launchoverhead.LaunchOverheadRun;
import dev.aorta.workloads.launchoverhead.Pattern;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitors;
import dev.aorta.workloads.result.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "launch-overhead", mixinStandardHelpOptions = true,
        description = {"The launch_overhead workload: the Java port of a vGPU hook's slowdown test (codebook assignment).",
                "Runs each pattern for a fixed time and prints ms/step, launches/step, syncs/step and PCIe throughput per rank, "
                        + "then a summary; checks correctness on a small size first."})
final class LaunchOverheadCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Option(names = "--patterns", defaultValue = "all", paramLabel = "LIST",
            description = "Comma-separated: argmin, balanced, all_reduce, combined, or all (default: ${DEFAULT-VALUE}). "
                    + "all_reduce and combined need several GPUs and a communicator and are skipped with the reason.")
    String patterns;

    @Option(names = "--seconds", defaultValue = "30", description = "Measured time per pattern (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--warmup-steps", defaultValue = "1", description = "Steps run before measuring (default: ${DEFAULT-VALUE}).")
    int warmupSteps;

    @Option(names = "--centroids", defaultValue = "8192", description = "K, centroids per codebook (default: ${DEFAULT-VALUE}).")
    int centroids;

    @Option(names = "--dim", defaultValue = "50", description = "D, coordinates per point (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--batch", defaultValue = "8192", description = "N, points per step; a multiple of K (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--stages", defaultValue = "3", description = "Residual stages per step (default: ${DEFAULT-VALUE}).")
    int stages;

    @Option(names = {"-d", "--device"}, defaultValue = "0", description = "CUDA device index (default: ${DEFAULT-VALUE}).")
    int device;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the random batch and codebooks (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--check-only", description = "Only the correctness check (argmin against a float64 reference, "
            + "balanced exactly w points per centroid) on K=256, D=50, batch 1024, 3 stages.")
    boolean checkOnly;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the result JSON here (atomically).")
    Path output;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    LaunchOverheadCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        LaunchOverheadOptions options = new LaunchOverheadOptions(new CodebookShape(centroids, dim, batch, stages),
                Pattern.parseList("--patterns", patterns), seconds, warmupSteps, device, seed);
        try (GpuSession session = gpu.open(device)) {
            LaunchOverheadRun run = new LaunchOverheadRun(p -> new CudaCodebookDevice(session, p),
                    PcieMonitors.forDevice(device), System::nanoTime);
            if (checkOnly) {
                CorrectnessCheck.Result c = run.check(options);
                System.out.println(LaunchOverheadReport.correctnessLine(c));
                return c.passed() ? 0 : 1;
            }
            LaunchOverheadResult result = run.run(options, session.deviceInfo());
            LaunchOverheadReport.print(result, System.out);
            if (output != null) {
                ResultJson.write(output, LaunchOverheadJson.toJson(result));
                System.out.println("result: " + output);
            }
            if (!result.correct()) {
                System.err.println("aorta launch-overhead: a pattern computed a wrong result (see correctness above)");
                return 1;
            }
            return 0;
        }
    }
}
