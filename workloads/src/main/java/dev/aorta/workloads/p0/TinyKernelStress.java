package dev.aorta.workloads.p0;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
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
 * Many tiny kernels on every stream: the device finishes each in a few µs, so the host's launch rate
 * and the device's queue switching decide the throughput (AORTA: size 256, 100 ops per stream,
 * 4 kernels per op).
 */
public final class TinyKernelStress implements Workload {
    private Op[][] opsPerStream;
    private final List<GpuBuffer> xs = new ArrayList<>();
    private GpuSession gpu;
    private long iterationsRun;
    private int size;
    private int streamCount;
    private int opsPerStreamCount;
    private int kernelsPerOp;

    @Override
    public String name() {
        return "tiny_kernel_stress";
    }

    @Override
    public String description() {
        return "Launch-bound: every stream issues ops of 4 tiny elementwise kernels; measures host launch cost "
                + "and queue switching";
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
        return new StreamRange(1, 64);
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
                WorkloadParameter.positive("size", "256", "elements per tiny kernel (one thread each)"),
                WorkloadParameter.positive("ops_per_stream", "100", "ops each stream issues per iteration"),
                WorkloadParameter.positive("kernels_per_op", "4", "kernels per op: add, mul, relu, scale, repeating"));
    }

    @Override
    public void setup(WorkloadContext context) {
        gpu = context.gpu();
        size = context.intParameter("size");
        opsPerStreamCount = context.intParameter("ops_per_stream");
        kernelsPerOp = context.intParameter("kernels_per_op");
        List<GpuStream> streams = context.streams();
        streamCount = streams.size();
        opsPerStream = new Op[streamCount][];
        for (int s = 0; s < streamCount; s++) {
            GpuBuffer x = context.randomBuffer(size, DType.FP32, 2 * s);
            GpuBuffer y = context.randomBuffer(size, DType.FP32, 2 * s + 1);
            xs.add(x);
            opsPerStream[s] = ElementwiseOps.prepare(context, streams.get(s), x, y, size, kernelsPerOp);
        }
    }

    @Override
    public void runIteration(int iteration) {
        iterationsRun++;
        for (Op[] ops : opsPerStream) {
            for (int op = 0; op < opsPerStreamCount; op++) {
                for (Op kernel : ops) {
                    kernel.run();
                }
            }
        }
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /** The first and the last stream's buffer against the host reference of every op they ran. */
    @Override
    public Optional<String> correctnessProblem() {
        for (int s : new int[] {0, streamCount - 1}) {
            float[] x = ElementwiseReference.uniforms(size, 2 * s);
            float[] y = ElementwiseReference.uniforms(size, 2 * s + 1);
            ElementwiseReference.apply(x, y, ElementwiseOps.names(kernelsPerOp), iterationsRun * opsPerStreamCount);
            Optional<String> problem = ElementwiseReference.firstMismatch("stream " + s + " x",
                    gpu.readFloats(xs.get(s), size), x);
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    /**
     * The throughput's numerator: the kernels one iteration asks for (the harness counts the launch calls it made as
     * they happen, but throughput is computed from the configuration).
     */
    private long kernelsPerIteration() {
        return (long) streamCount * opsPerStreamCount * kernelsPerOp;
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(kernelsPerIteration() * iterations / (totalTimeMs / 1e3), "kernels/s");
    }

    @Override
    public void cleanup() {
        opsPerStream = null;
        xs.clear();
    }
}
