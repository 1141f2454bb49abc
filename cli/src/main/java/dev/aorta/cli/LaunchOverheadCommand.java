package dev.aorta.cli;

import dev.aorta.launch.GpuCount;
import dev.aorta.workloads.dist.CommWatchdog;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.launchoverhead.CodebookShape;
import dev.aorta.workloads.launchoverhead.CorrectnessCheck;
import dev.aorta.workloads.launchoverhead.CudaCodebookDevice;
import dev.aorta.workloads.launchoverhead.LaunchOverheadJson;
import dev.aorta.workloads.launchoverhead.LaunchOverheadOptions;
import dev.aorta.workloads.launchoverhead.LaunchOverheadReport;
import dev.aorta.workloads.launchoverhead.LaunchOverheadResult;
import dev.aorta.workloads.launchoverhead.LaunchOverheadRun;
import dev.aorta.workloads.launchoverhead.Pattern;
import dev.aorta.workloads.launchoverhead.StageAllReduce;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitors;
import dev.aorta.workloads.result.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

@Command(name = "launch-overhead", mixinStandardHelpOptions = true,
        description = {"The launch_overhead workload: the Java port of a vGPU hook's slowdown test (codebook assignment).",
                "Runs each pattern for a fixed time and prints ms/step, launches/step, syncs/step and PCIe throughput per rank, "
                        + "then a summary; checks correctness on a small size first.",
                "Multi-GPU (all_reduce, combined) under aorta launch, torchrun --no-python or srun: every rank's results are "
                        + "gathered and rank 0 prints the table."})
final class LaunchOverheadCommand implements Callable<Integer> {
    private final GpuSessionFactory gpu;

    @Option(names = "--patterns", defaultValue = "all", paramLabel = "LIST",
            description = "Comma-separated: argmin, balanced, all_reduce, combined, or all (default: ${DEFAULT-VALUE}). "
                    + "all_reduce and combined need 2 or more ranks (aorta launch, torchrun, srun); with one they are skipped "
                    + "with the reason.")
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

    @Option(names = {"-d", "--device"}, paramLabel = "N", description = "CUDA device index (default: LOCAL_RANK, 0 alone).")
    Integer device;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the random batch and codebooks (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--check-only", description = "Only the correctness check (argmin against a float64 reference, "
            + "balanced exactly w points per centroid) on K=256, D=50, batch 1024, 3 stages.")
    boolean checkOnly;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Write the result JSON here (atomically); with several ranks rank 0 writes it, with every rank's results.")
    Path output;

    @Mixin
    CommunicationTimeouts timeouts = new CommunicationTimeouts();

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    LaunchOverheadCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        DistributedEnvironment env = DistributedEnvironment.current();
        timeouts.validate();
        int dev = device != null ? device : env.localRank();
        if (env.distributed()) {
            GpuCount.requireFits(env.localWorldSize(), "LOCAL_WORLD_SIZE " + env.localWorldSize());
        }
        OptionalInt visible = GpuCount.visible();
        if (visible.isPresent() && dev >= visible.getAsInt()) {
            throw new IllegalArgumentException("--device " + dev + (device == null ? " (LOCAL_RANK)" : "") + ": only "
                    + visible.getAsInt() + " GPUs are visible");
        }
        LaunchOverheadOptions options = new LaunchOverheadOptions(new CodebookShape(centroids, dim, batch, stages),
                Pattern.parseList("--patterns", patterns), seconds, warmupSteps, dev, seed);
        if (env.distributed()) {
            System.out.println("launch_overhead: " + env.describe() + ", device " + dev);
            OverlapCommand.keepNvlinkMulticastOff();
        }
        try (GpuSession session = gpu.open(dev)) {
            if (checkOnly) {
                CorrectnessCheck.Result c = singleRank(session, dev).check(options);
                System.out.println(LaunchOverheadReport.correctnessLine(c));
                return c.passed() ? 0 : 1;
            }
            LaunchOverheadResult result = env.distributed()
                    ? runRanks(session, env, options)
                    : singleRank(session, dev).run(options, session.deviceInfo());
            if (env.rank() == 0) {
                LaunchOverheadReport.print(result, System.out);
                if (output != null) {
                    ResultJson.write(output, LaunchOverheadJson.toJson(result));
                    System.out.println("result: " + output);
                }
            } else {
                LaunchOverheadReport.printRankLines(result.ranks().get(env.rank()), System.out);
            }
            if (!result.correct()) {
                System.err.println("aorta launch-overhead: rank " + env.rank()
                        + ": a pattern computed a wrong result (see correctness" + (env.rank() == 0 ? " above)" : " on rank 0)")
                        + (result.allReduceProblem() != null ? ": " + result.allReduceProblem() : ""));
                return 1;
            }
            return 0;
        }
    }

    private LaunchOverheadRun singleRank(GpuSession session, int dev) {
        return new LaunchOverheadRun(p -> new CudaCodebookDevice(session, p), PcieMonitors.forDevice(dev), System::nanoTime);
    }

    /** One rank of several: the world communicator, watched, aborted on failure or SIGTERM (as aorta overlap does). */
    private LaunchOverheadResult runRanks(GpuSession session, DistributedEnvironment env, LaunchOverheadOptions options) {
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(session, env, null,
                timeouts.rendezvous(), System.out::println);
        Communicator world = comms.world();
        CommWatchdog watchdog = new CommWatchdog(comms.all(), timeouts.comm(), Duration.ofMillis(100));
        // SIGTERM from a launcher stopping the job: abort, so no NCCL kernel keeps this GPU busy after we exit
        Thread onSignal = new Thread(() -> watchdog.abortAll("rank " + env.rank() + " was terminated"), "aorta-comm-abort");
        Runtime.getRuntime().addShutdownHook(onSignal);
        boolean failed = true;
        try {
            LaunchOverheadRun run = new LaunchOverheadRun(p -> new CudaCodebookDevice(session, p),
                    PcieMonitors.forDevice(options.device()), System::nanoTime,
                    shape -> new StageAllReduce(session, world, shape), watchdog);
            LaunchOverheadResult result = run.run(options, session.deviceInfo());
            failed = false;
            return result;
        } catch (RuntimeException e) {
            // after an abort, what the device calls report is a consequence; the watchdog knows the cause
            if (watchdog.failure().isPresent()) {
                throw new IllegalStateException("rank " + env.rank() + ": " + watchdog.failure().get(), e);
            }
            throw e;
        } finally {
            watchdog.close();
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException e) {
                // shutting down already: the hook aborts the communicator
            }
            for (Communicator c : comms.all()) {
                if (failed) {
                    c.abort();
                } else {
                    c.close();
                }
            }
        }
    }
}
