package dev.aorta.workloads.p0;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.ConvoyRoles;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Large GEMMs on the first n/2 streams, small elementwise kernels on the others (AORTA: GEMM 4096³,
 * 1-D size 1024, 10 small per large): shows whether small kernels get through while the GEMMs hold
 * the device (the convoy effect).
 */
public final class HeteroKernels implements Workload {
    static final String LARGE = "large";
    static final String SMALL = "small";

    private final List<Op> gemms = new ArrayList<>();
    private final List<Op[]> smallOps = new ArrayList<>();
    private final List<GpuBuffer> smallXs = new ArrayList<>();
    private final List<Integer> smallStreams = new ArrayList<>();
    private GpuSession gpu;
    private long iterationsRun;
    private int smallSize;
    private GemmSpec spec;
    private int smallPerLarge;

    @Override
    public String name() {
        return "hetero_kernels";
    }

    @Override
    public String description() {
        return "Large GEMMs on the first half of the streams, 1-D small kernels on the rest; measures how "
                + "small kernels wait behind large ones";
    }

    @Override
    public String category() {
        return "hw_queue";
    }

    @Override
    public Priority priority() {
        return Priority.P0;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(2, 64);
    }

    @Override
    public int recommendedStreams() {
        return 8;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(
                WorkloadParameter.positive("gemm_size", "4096", "m = n = k of each large GEMM"),
                WorkloadParameter.positive("small_size", "1024", "elements per small kernel"),
                WorkloadParameter.positive("small_per_large", "10",
                        "small kernels each small stream issues per iteration (each large stream issues one GEMM)"));
    }

    @Override
    public boolean usesDtype() {
        return true;
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return streamIndex < streamCount / 2 ? LARGE : SMALL;
    }

    @Override
    public Optional<ConvoyRoles> convoyRoles() {
        return Optional.of(new ConvoyRoles(SMALL, LARGE));
    }

    @Override
    public void setup(WorkloadContext context) {
        spec = GemmSpec.square(context.dtype(), context.intParameter("gemm_size"));
        gpu = context.gpu();
        smallSize = context.intParameter("small_size");
        smallPerLarge = context.intParameter("small_per_large");
        List<GpuStream> streams = context.streams();
        for (int s : context.streamsWithRole(LARGE)) {
            gemms.add(context.gemm("gemm " + spec.describe(), spec, streams.get(s), 100 + 2 * s));
        }
        for (int s : context.streamsWithRole(SMALL)) {
            GpuBuffer x = context.randomBuffer(smallSize, DType.FP32, 2 * s);
            GpuBuffer y = context.randomBuffer(smallSize, DType.FP32, 2 * s + 1);
            smallXs.add(x);
            smallStreams.add(s);
            smallOps.add(ElementwiseOps.prepare(context, streams.get(s), x, y, smallSize, smallPerLarge));
        }
    }

    /** GEMMs first, so that the small kernels are queued while the GEMMs occupy the device. */
    @Override
    public void runIteration(int iteration) {
        iterationsRun++;
        for (Op gemm : gemms) {
            gemm.run();
        }
        for (Op[] ops : smallOps) {
            for (Op op : ops) {
                op.run();
            }
        }
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /** Every small stream's buffer against the host reference (the GEMMs are cuBLAS's own business). */
    @Override
    public Optional<String> correctnessProblem() {
        for (int i = 0; i < smallXs.size(); i++) {
            int s = smallStreams.get(i);
            float[] x = ElementwiseReference.uniforms(smallSize, 2 * s);
            float[] y = ElementwiseReference.uniforms(smallSize, 2 * s + 1);
            ElementwiseReference.apply(x, y, ElementwiseOps.names(smallPerLarge), iterationsRun);
            Optional<String> problem = ElementwiseReference.firstMismatch("small stream " + s + " x",
                    gpu.readFloats(smallXs.get(i), smallSize), x);
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    /** Iterations per second: one iteration = every large stream's GEMM and every small stream's kernels. */
    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(iterations / (totalTimeMs / 1e3), "iterations/s");
    }

    @Override
    public void cleanup() {
        gemms.clear();
        smallOps.clear();
        smallXs.clear();
        smallStreams.clear();
    }
}
