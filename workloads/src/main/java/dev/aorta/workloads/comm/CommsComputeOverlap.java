package dev.aorta.workloads.comm;

import dev.aorta.workloads.dist.CommWatchdog;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.session.PreparedLaunch;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;
import dev.aorta.workloads.session.GemmSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * AORTA's comms_compute_overlap: stream 0 carries the collectives, every other stream GEMMs. An iteration
 * issues its collectives first (like a trainer's gradient all-reduce) and then the GEMMs, so with
 * {@code asyncOp} the GEMMs run while the collectives do; without it the host waits for each collective
 * before going on, as a blocking collective call does. Without a communicator, a device copy of the same
 * size stands in for each collective (a single process has no peers).
 */
public final class CommsComputeOverlap implements Workload {
    public static final String NAME = "comms_compute_overlap";
    static final String COMM_ROLE = "comm";
    static final String COMPUTE_ROLE = "compute";
    private static final int BLOCK = 256;
    private static final int CHECK_ELEMENTS_PER_RANK = 256;

    /** Null until setup for the registry's instance: it is made from the run's streams and parameters. */
    private OverlapConfig config;
    private final boolean fromParameters;
    private final Communicator communicator;
    private final List<Integer> members;
    private final int worldRank;
    private final CommWatchdog watchdog;

    private final List<Op> gemms = new ArrayList<>();
    private final List<Op> collectives = new ArrayList<>();
    private WorkloadContext context;
    private GpuStream commStream;
    private GpuEvent collectiveDone;

    /**
     * The registry's instance ({@code aorta list}, {@code sweep}, {@code run-priority}): AORTA's defaults with
     * simulated collectives (one process has no peers), stream 0 for communication and every other stream of the
     * run for GEMMs; its {@code --param}s are AORTA's numeric options. {@code aorta run comms_compute_overlap} and
     * {@code aorta overlap} make a configured instance instead (real collectives, modes, references).
     */
    public CommsComputeOverlap() {
        this(null, null, List.of(0), 0, null);
    }

    /**
     * @param communicator the group's communicator; null: collectives are simulated by copies
     * @param members      the world ranks of the group (group rank i = members[i])
     * @param watchdog     told about every iteration's progress; null without a communicator
     */
    public CommsComputeOverlap(OverlapConfig config, Communicator communicator, List<Integer> members, int worldRank,
                               CommWatchdog watchdog) {
        this.config = config;
        this.fromParameters = config == null;
        this.communicator = communicator;
        this.members = List.copyOf(members);
        this.worldRank = worldRank;
        this.watchdog = watchdog;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Collectives on stream 0 while GEMMs run on the compute streams; measures how much communication "
                + "the compute hides and what it costs the compute";
    }

    @Override
    public String category() {
        return "comms";
    }

    /** AORTA gives it no tier. */
    @Override
    public Priority priority() {
        return Priority.UNTIERED;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        if (!fromParameters) {
            return List.of(); // configured by options, not parameters
        }
        return List.of(WorkloadParameter.positive("mm_dim", "2048", "M = N = K of every GEMM"),
                WorkloadParameter.positive("num_compute", "10", "GEMMs per compute stream per iteration"),
                WorkloadParameter.positive("num_coll", "1", "collectives (simulated all-reduce copies) per iteration"),
                WorkloadParameter.positive("comm_mib", "128", "size of each collective in MiB"));
    }

    /** Stream 0 for communication and the compute streams; compute_only leaves the communication stream out. */
    public int streamCount() {
        if (config == null) {
            throw new IllegalStateException("the registry's instance takes its stream count from the run");
        }
        return switch (config.mode()) {
            case COMMS_COMPUTE -> 1 + config.computeStreams();
            case COMPUTE_ONLY -> config.computeStreams();
            case COMMS_ONLY -> 1;
        };
    }

    /** AORTA's 1..32 less 1 stream: its comms_compute mode needs a compute stream besides stream 0. */
    @Override
    public StreamRange streamRange() {
        return fromParameters ? new StreamRange(2, 32) : new StreamRange(streamCount(), streamCount());
    }

    @Override
    public int recommendedStreams() {
        return fromParameters ? 4 : streamCount();
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.MEDIUM;
    }

    @Override
    public boolean usesDtype() {
        return true;
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        boolean communicates = fromParameters || config.mode().communicates();
        return communicates && streamIndex == 0 ? COMM_ROLE : COMPUTE_ROLE;
    }

    @Override
    public void setup(WorkloadContext ctx) {
        this.context = ctx;
        if (config == null) {
            config = new OverlapConfig(OverlapMode.COMMS_COMPUTE,
                    GemmSpec.square(ctx.dtype(), ctx.intParameter("mm_dim")), ctx.intParameter("num_compute"),
                    ctx.streams().size() - 1, (long) ctx.intParameter("comm_mib") << 20, ctx.intParameter("num_coll"),
                    CommDType.FP32, Collective.ALL_REDUCE, false, false);
        }
        List<GpuStream> streams = ctx.streams();
        int firstCompute = config.mode().communicates() ? 1 : 0;
        if (config.mode().computes()) {
            for (int s = firstCompute; s < streams.size(); s++) {
                Op gemm = ctx.gemm("gemm " + config.gemm().describe(), config.gemm(), streams.get(s), 100 + 2 * s);
                for (int g = 0; g < config.gemmsPerStream(); g++) {
                    gemms.add(gemm);
                }
            }
        }
        if (config.mode().communicates()) {
            commStream = streams.getFirst();
            collectiveDone = ctx.gpu().createEvent();
            int n = groupSize();
            long s = config.commBytes();
            GpuBuffer send = ctx.allocate(config.collective().sendBytes(s, n));
            GpuBuffer recv = ctx.allocate(config.collective().recvBytes(s, n));
            zero(ctx, send);
            // the label names event-pair samples: ActivityClassifier's default pattern must find it communication
            // ("nccl", "simulated_collective_copy") like the kernels
            String label = (communicator == null ? "simulated_collective_copy for " : "nccl ") + config.collective().label() + " "
                    + config.commDtype().label() + " " + OverlapConfig.bytesText(s);
            for (int c = 0; c < config.collectives(); c++) {
                collectives.add(ctx.op(label, commStream, communicator == null
                        ? copyLaunch(ctx, recv, send, s)
                        : collectiveLaunch(() -> config.collective().issue(communicator, send, recv, s,
                        config.commDtype(), commStream))));
            }
        }
    }

    /** Defined inputs (zeros) so that reductions never meet NaN or Inf patterns of uninitialized memory. */
    private static void zero(WorkloadContext ctx, GpuBuffer b) {
        long floats = b.bytes() / 4;
        ctx.kernels("comm.cu").prepare("fill_value_f32", grid(floats), new Dim3(BLOCK, 1, 1), 0, ctx.streams().getFirst(),
                KernelArg.pointer(b), KernelArg.i64(floats), KernelArg.f32(0f)).launch();
    }

    private static PreparedLaunch copyLaunch(WorkloadContext ctx, GpuBuffer dst, GpuBuffer src, long bytes) {
        long units = bytes / 16;
        if (units * 16 != bytes) {
            throw new IllegalArgumentException("--comm-size " + bytes + " bytes: the simulated collective copies "
                    + "16-byte units; choose a multiple of 16");
        }
        return ctx.kernels("comm.cu").prepare("simulated_collective_copy", grid(units), new Dim3(BLOCK, 1, 1), 0,
                ctx.streams().getFirst(), KernelArg.pointer(dst), KernelArg.pointer(src), KernelArg.i64(units));
    }

    /** A collective call as a launch the harness can time like a kernel (it has no kernel arguments to set). */
    private static PreparedLaunch collectiveLaunch(Runnable issue) {
        return new PreparedLaunch() {
            @Override
            public void launch() {
                issue.run();
            }

            @Override
            public void setInt(int index, int value) {
                throw new IllegalArgumentException("a collective has no kernel arguments");
            }
        };
    }

    private static Dim3 grid(long elements) {
        return new Dim3((int) Math.max(1, Math.min(4096, (elements + BLOCK - 1) / BLOCK)), 1, 1);
    }

    int groupSize() {
        return communicator == null ? 1 : communicator.size();
    }

    /**
     * A barrier before the measured loop: one small all-reduce, waited for. Each process reaches the loop after
     * its own warm-up and CUPTI start-up; without this the first collective would also time the other ranks'
     * late arrival (milliseconds), which nccl-tests and torch benchmarks exclude the same way.
     */
    @Override
    public void beforeMeasuredIterations() {
        if (communicator == null || !config.mode().communicates()) {
            return; // nothing to align: simulated collectives, or compute_only (no communication stream)
        }
        try (GpuBuffer one = context.gpu().allocate(4)) {
            communicator.allReduce(one, one, 1, CommDType.FP32, commStream);
            commStream.synchronize();
        }
    }

    /** Collectives first, then the GEMMs; without --async-op the host waits for each collective. */
    @Override
    public void runIteration(int iteration) {
        if (watchdog != null) {
            watchdog.progress();
        }
        for (Op c : collectives) {
            c.run();
            if (!config.asyncOp()) {
                collectiveDone.record(commStream);
                collectiveDone.synchronize();
                if (watchdog != null) {
                    watchdog.progress();
                }
            }
        }
        for (Op g : gemms) {
            g.run();
        }
    }

    /** TFLOP/s of the GEMMs over device time, or in comms_only the collectives' algbw in GB/s. */
    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        double seconds = totalTimeMs / 1e3;
        if (!config.mode().computes()) {
            return new Throughput((double) config.commBytes() * config.collectives() * iterations / seconds / 1e9,
                    "GB/s (algbw)");
        }
        return new Throughput(config.flopsPerIteration() * iterations / seconds / 1e12, "TFLOP/s");
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return config.mode().communicates();
    }

    /**
     * Every rank fills a small fp32 send buffer with (its world rank + 1) and runs the collective once; the
     * receive buffer must then hold the group's sums, blocks or root value exactly (small integers are exact).
     */
    @Override
    public Optional<String> correctnessProblem() {
        if (!hasCorrectnessCheck()) {
            return Optional.empty();
        }
        GpuSession gpu = context.gpu();
        int n = groupSize();
        int total = CHECK_ELEMENTS_PER_RANK * n;
        long bytes = (long) total * 4;
        Collective kind = config.collective();
        try (GpuBuffer send = gpu.allocate(kind.sendBytes(bytes, n)); GpuBuffer recv = gpu.allocate(kind.recvBytes(bytes, n))) {
            long sendFloats = send.bytes() / 4;
            context.kernels("comm.cu").prepare("fill_value_f32", grid(sendFloats), new Dim3(BLOCK, 1, 1), 0, commStream,
                    KernelArg.pointer(send), KernelArg.i64(sendFloats), KernelArg.f32(worldRank + 1)).launch();
            if (communicator == null) {
                copyLaunch(context, recv, send, bytes).launch();
            } else {
                kind.issue(communicator, send, recv, bytes, CommDType.FP32, commStream);
            }
            int recvFloats = (int) (recv.bytes() / 4);
            float[] got = gpu.readFloats(recv, recvFloats);
            int groupRank = members.indexOf(worldRank);
            for (int i = 0; i < recvFloats; i++) {
                float want = communicator == null ? worldRank + 1 : kind.expected(i, recvFloats, members, groupRank);
                if (got[i] != want) {
                    return Optional.of((communicator == null ? "simulated " : "") + kind.label() + " of (rank + 1) in group "
                            + members + ": element " + i + " is " + got[i] + ", expected " + want);
                }
            }
        }
        return Optional.empty();
    }

    /** What the correctness check expects, in words, for the report. */
    public String correctnessRule() {
        if (communicator == null) {
            return "the copy of (rank + 1) arrives unchanged";
        }
        return switch (config.collective()) {
            case ALL_REDUCE, REDUCE_SCATTER -> "every element = sum of (rank + 1) over group " + members;
            case BROADCAST -> "every element = group root's rank + 1 (" + (members.getFirst() + 1) + ")";
            case ALL_GATHER, ALL_TO_ALL -> "block i = (rank + 1) of group member i, group " + members;
        };
    }

    @Override
    public void cleanup() {
        gemms.clear();
        collectives.clear();
        if (collectiveDone != null) {
            collectiveDone.close();
            collectiveDone = null;
        }
    }
}
