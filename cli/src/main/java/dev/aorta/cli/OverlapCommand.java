package dev.aorta.cli;

import dev.aorta.launch.GpuCount;
import dev.aorta.workloads.comm.Collective;
import dev.aorta.workloads.comm.CommsComputeOverlap;
import dev.aorta.workloads.comm.OverlapConfig;
import dev.aorta.workloads.comm.OverlapMode;
import dev.aorta.workloads.comm.OverlapOutcome;
import dev.aorta.workloads.dist.CommWatchdog;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.dist.ProcessGroups;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.session.NativeEnvironment;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.KernelTimingMode;
import dev.aorta.workloads.harness.PriorityMode;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.SyncMode;
import dev.aorta.workloads.result.ChromeTrace;
import dev.aorta.workloads.result.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

@Command(name = "overlap", aliases = CommsComputeOverlap.NAME, mixinStandardHelpOptions = true,
        description = "comms_compute_overlap: collectives on stream 0 while GEMMs run on the compute streams; "
                + "reports TFLOP/s, algbw/busbw, overlap %%, exposed communication and compute slowdown. "
                + "Multi-GPU under aorta launch, torchrun --no-python or srun.")
final class OverlapCommand implements Callable<Integer> {
    static final String NVLS = "NCCL_NVLS_ENABLE";
    private final GpuSessionFactory gpu;

    @Option(names = "--mode", defaultValue = "comms_compute", paramLabel = "MODE",
            description = "comms_compute, compute_only or comms_only (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--mm-dim", defaultValue = "2048", paramLabel = "M,N,K",
            description = "GEMM shape M,N,K or one value for all (default: ${DEFAULT-VALUE}).")
    String mmDim;

    @Option(names = "--num-compute", defaultValue = "10", paramLabel = "N",
            description = "GEMMs per compute stream per iteration (default: ${DEFAULT-VALUE}).")
    int numCompute;

    @Option(names = "--comp-dtype", defaultValue = "bf16", paramLabel = "TYPE",
            description = "GEMM type fp32, tf32, bf16, fp16 (default: ${DEFAULT-VALUE}).")
    String compDtype;

    @Option(names = "--comm-size", defaultValue = "128M", paramLabel = "SIZE",
            description = "Collective size in bytes, K/M/G = powers of 1024 (nccl-tests' convention; default: ${DEFAULT-VALUE}).")
    String commSize;

    @Option(names = "--num-coll", defaultValue = "1", paramLabel = "N",
            description = "Collectives per iteration (default: ${DEFAULT-VALUE}).")
    int numColl;

    @Option(names = "--comm-dtype", defaultValue = "bf16", paramLabel = "TYPE",
            description = "Collective element type fp32, bf16, fp16 (default: ${DEFAULT-VALUE}).")
    String commDtype;

    @Option(names = "--compute-streams", defaultValue = "2", paramLabel = "N",
            description = "Compute streams; stream 0 is the communication stream besides them (default: ${DEFAULT-VALUE}).")
    int computeStreams;

    @Option(names = "--collective", defaultValue = "all_reduce", paramLabel = "KIND",
            description = "all_reduce, all_gather, reduce_scatter, broadcast or all_to_all (default: ${DEFAULT-VALUE}).")
    String collective;

    @Option(names = "--real-collectives",
            description = "NCCL collectives even in one process (implied with several ranks); without: a device copy of the same size.")
    boolean realCollectives;

    @Option(names = "--async-op",
            description = "Only enqueue the collectives; without it the host waits for each one (a blocking collective).")
    boolean asyncOp;

    @Option(names = "--backend", defaultValue = "nccl", paramLabel = "NAME", description = "Only nccl (default).")
    String backend;

    @Option(names = "--process-groups", paramLabel = "GROUPS",
            description = "Disjoint groups of world ranks, e.g. \"[0,1],[2,3]\"; each rank's collectives run in its group.")
    String processGroups;

    @Option(names = {"-i", "--iterations"}, defaultValue = "100", paramLabel = "N", description = "Measured iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = {"-w", "--warmup"}, defaultValue = "10", paramLabel = "N", description = "Warmup iterations (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--sync-mode", defaultValue = "per_iteration", paramLabel = "MODE",
            description = "per_iteration, end_only or none, as in aorta run (default: ${DEFAULT-VALUE}).")
    String syncMode;

    @Option(names = {"-d", "--device"}, paramLabel = "N", description = "CUDA device (default: LOCAL_RANK, 0 alone).")
    Integer device;

    @Option(names = "--kernel-timing", defaultValue = "auto", paramLabel = "SOURCE",
            description = "auto, cupti or event-pairs, as in aorta run (default: ${DEFAULT-VALUE}).")
    String kernelTiming;

    @Option(names = "--timing-samples", defaultValue = "10", paramLabel = "N",
            description = "Iterations traced after the measured ones, as in aorta run (default: ${DEFAULT-VALUE}).")
    int timingSamples;

    @Option(names = "--no-references",
            description = "In comms_compute, skip the compute_only and comms_only reference runs (no slowdowns).")
    boolean noReferences;

    @Mixin
    CommunicationTimeouts timeouts = new CommunicationTimeouts();

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Result JSON (atomically); with several ranks {rank} in the name is replaced, else .rank<R> is inserted.")
    Path output;

    @Option(names = "--profile", description = "Also write a Perfetto/Chrome-trace JSON of the main run's measured iterations.")
    boolean profile;

    @Option(names = "--profile-dir", paramLabel = "DIR", defaultValue = "profiles",
            description = "Where --profile writes its trace (default: ${DEFAULT-VALUE}).")
    Path profileDir;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    OverlapCommand(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public Integer call() throws Exception {
        DistributedEnvironment env = DistributedEnvironment.current();
        if (!backend.equalsIgnoreCase("nccl")) {
            throw new IllegalArgumentException("--backend " + backend + ": only nccl is supported"
                    + (backend.equalsIgnoreCase("gloo") ? " (gloo is PyTorch's CPU backend; the JVM has no gloo and the "
                    + "workload's buffers live on the GPU)" : ""));
        }
        ProcessGroups groups = processGroups == null ? null : ProcessGroups.parse(processGroups).validateFor(env.worldSize());
        boolean real = realCollectives || env.distributed();
        if (groups != null && !real) {
            throw new IllegalArgumentException("--process-groups needs real collectives: several ranks or --real-collectives");
        }
        OverlapMode overlapMode = OverlapMode.parse(mode);
        DType computeType = DType.parse(compDtype);
        CommDType commType = CommDType.parse(commDtype);
        long bytes = OverlapConfig.parseSize(commSize);
        Collective kind = Collective.parse(collective);
        OverlapConfig config = new OverlapConfig(overlapMode, OverlapConfig.parseMmDim(mmDim, computeType), numCompute,
                computeStreams, bytes, numColl, commType, kind, real, asyncOp);
        int groupSize = groups != null ? groups.membersOf(env.rank()).size() : real ? env.worldSize() : 1;
        if (overlapMode.communicates()) {
            kind.requireSize(bytes, commType, groupSize, "--comm-size");
            if (!real && bytes % 16 != 0) {
                throw new IllegalArgumentException("--comm-size " + bytes + " bytes: the simulated collective copies "
                        + "16-byte units; choose a multiple of 16");
            }
        }
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
        KernelTimingMode timing = KernelTimingMode.parse(kernelTiming);
        HarnessOptions options = new HarnessOptions(1, iterations, warmup, SyncMode.parse(syncMode), dev,
                PriorityMode.NONE, computeType, timing, timingSamples, Map.of(), null);
        Path out = output == null ? null : rankFile(output, env);

        System.out.println(CommsComputeOverlap.NAME + ": " + env.describe() + ", device " + dev);
        keepNvlinkMulticastOff();
        OverlapOutcome outcome;
        try (GpuSession session = gpu.open(dev)) {
            outcome = measure(session, config, options, env, groups);
        }
        OverlapReport.print(outcome, System.out);
        if (out != null) {
            ResultJson.write(out, OverlapReport.toJson(outcome));
            System.out.println("result: " + out);
        }
        if (profile) {
            Path trace = rankFile(profileDir.resolve(CommsComputeOverlap.NAME + "_s"
                    + outcome.main().options().streams() + "_trace.json"), env);
            ChromeTrace.write(trace, outcome.main());
            System.out.println("trace: " + trace + " (open in ui.perfetto.dev; one track per stream)");
        }
        for (RunResult run : java.util.Arrays.asList(outcome.main(), outcome.computeReference(), outcome.commReference())) {
            String problem = run == null ? null : run.correctness().problem();
            if (problem != null) {
                System.err.println("aorta overlap: rank " + env.rank() + " computed a wrong result: " + problem);
                return 1;
            }
        }
        return 0;
    }

    private OverlapOutcome measure(GpuSession session, OverlapConfig config, HarnessOptions options,
                                   DistributedEnvironment env, ProcessGroups groups) {
        Harness harness = new Harness(GpuEnvironment.recorded(), false);
        if (!config.real()) {
            return runPhases(harness, session, config, options, env, null, List.of(), null);
        }
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(session, env, groups,
                timeouts.rendezvous(), line -> System.out.println(line));
        CommWatchdog watchdog = new CommWatchdog(comms.all(), timeouts.comm(), Duration.ofMillis(100));
        // SIGTERM from a launcher stopping the job: abort, so no NCCL kernel keeps this GPU busy after we exit
        Thread onSignal = new Thread(() -> watchdog.abortAll("rank " + env.rank() + " was terminated"),
                "aorta-comm-abort");
        Runtime.getRuntime().addShutdownHook(onSignal);
        boolean failed = true;
        try {
            OverlapOutcome outcome = runPhases(harness, session, config, options, env, comms.group(), comms.members(),
                    watchdog);
            failed = false;
            return outcome;
        } catch (RuntimeException e) {
            // after an abort, what the device calls report is a consequence; the watchdog knows the cause
            if (watchdog.failure().isPresent()) {
                throw new IllegalStateException("rank " + env.rank() + ": " + watchdog.failure().get(), e);
            }
            throw e;
        } finally {
            watchdog.close();
            removeHook(onSignal);
            for (Communicator c : comms.all()) {
                if (failed) {
                    c.abort();
                } else {
                    c.close();
                }
            }
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already: the hook aborts the communicators
        }
    }

    private OverlapOutcome runPhases(Harness harness, GpuSession session, OverlapConfig config, HarnessOptions options,
                                     DistributedEnvironment env, Communicator group, List<Integer> members,
                                     CommWatchdog watchdog) {
        CommsComputeOverlap workload = workload(config, group, members, env, watchdog);
        RunResult main = phase(harness, session, workload, options, watchdog);
        RunResult computeRef = null;
        RunResult commRef = null;
        if (config.mode() == OverlapMode.COMMS_COMPUTE && !noReferences) {
            computeRef = phase(harness, session, workload(config.withMode(OverlapMode.COMPUTE_ONLY), group, members,
                    env, watchdog), options, watchdog);
            commRef = phase(harness, session, workload(config.withMode(OverlapMode.COMMS_ONLY), group, members,
                    env, watchdog), options, watchdog);
        }
        return new OverlapOutcome(config, env, members, backend.toLowerCase(Locale.ROOT),
                processGroups == null ? null : ProcessGroups.parse(processGroups).toString(), workload.correctnessRule(),
                main, computeRef, commRef);
    }

    private static CommsComputeOverlap workload(OverlapConfig config, Communicator group, List<Integer> members,
                                                DistributedEnvironment env, CommWatchdog watchdog) {
        return new CommsComputeOverlap(config, group, members, env.rank(), watchdog);
    }

    private static RunResult phase(Harness harness, GpuSession session, CommsComputeOverlap workload,
                                   HarnessOptions options, CommWatchdog watchdog) {
        if (watchdog != null) {
            watchdog.arm();
        }
        try {
            RunResult r = harness.run(workload, options.withStreams(workload.streamCount()), session);
            if (watchdog != null && watchdog.failure().isPresent()) {
                throw new IllegalStateException(watchdog.failure().get());
            }
            return r;
        } finally {
            if (watchdog != null) {
                watchdog.disarm();
            }
        }
    }

    /**
     * NCCL reads NCCL_NVLS_ENABLE when a communicator is made: under torchrun or srun nobody may have set it,
     * and NVLink multicast must stay off on the shared hosts (docs/architecture.md#gpu-hosts-without-a-jdk).
     */
    static void keepNvlinkMulticastOff() {
        String now = NativeEnvironment.get(NVLS);
        if (!"0".equals(now)) {
            NativeEnvironment.set(NVLS, "0");
            if (now != null) {
                System.out.println("note: " + NVLS + "=" + now + " replaced by 0 (NVLink multicast stays off)");
            }
        }
    }

    /** Ranks of one job must not write the same file: {rank} is replaced, else .rank<R> goes before the extension. */
    static Path rankFile(Path file, DistributedEnvironment env) {
        String name = file.getFileName().toString();
        if (name.contains("{rank}")) {
            return file.resolveSibling(name.replace("{rank}", Integer.toString(env.rank())));
        }
        if (!env.distributed()) {
            return file;
        }
        int dot = name.lastIndexOf('.');
        String renamed = dot > 0 ? name.substring(0, dot) + ".rank" + env.rank() + name.substring(dot)
                : name + ".rank" + env.rank();
        return file.resolveSibling(renamed);
    }
}
