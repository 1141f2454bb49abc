package dev.aorta.workloads.p0;

import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.PreparedGemm;
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

/**
 * One large GEMM per stream per iteration (AORTA: 8192³): each fills the device, so extra streams
 * should neither help nor hurt; its TFLOP/s next to a plain cuBLAS loop shows the harness's cost.
 */
public final class LargeGemmOnly implements Workload {
    private final List<Op> gemms = new ArrayList<>();
    private final List<PreparedGemm> baseline = new ArrayList<>();
    private GemmSpec spec;

    @Override
    public String name() {
        return "large_gemm_only";
    }

    @Override
    public String description() {
        return "One large GEMM per stream; compute-bound reference whose throughput should not depend on streams";
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
        return new StreamRange(1, 16);
    }

    @Override
    public int recommendedStreams() {
        return 4;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.LOW;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("size", "8192", "m = n = k of each GEMM"));
    }

    @Override
    public boolean usesDtype() {
        return true;
    }

    @Override
    public void setup(WorkloadContext context) {
        spec = GemmSpec.square(context.dtype(), context.intParameter("size"));
        List<GpuStream> streams = context.streams();
        for (int s = 0; s < streams.size(); s++) {
            GpuBuffer a = context.randomBuffer(spec.bytesA() / spec.dtype().bytes(), spec.dtype(), 2 * s);
            GpuBuffer b = context.randomBuffer(spec.bytesB() / spec.dtype().bytes(), spec.dtype(), 2 * s + 1);
            GpuBuffer c = context.allocate(spec.bytesC());
            gemms.add(context.op("gemm " + spec.describe(), streams.get(s),
                    context.gpu().prepareGemm(spec, a, b, c, streams.get(s))));
            baseline.add(context.gpu().prepareGemm(spec, a, b, c, streams.getFirst()));
        }
    }

    @Override
    public void runIteration(int iteration) {
        for (Op gemm : gemms) {
            gemm.run();
        }
    }

    @Override
    public boolean hasBaselineLoop() {
        return true;
    }

    /** The same GEMMs on the same operands, all on the first stream, called directly. */
    @Override
    public void runBaselineIteration(int iteration) {
        for (PreparedGemm gemm : baseline) {
            gemm.launch();
        }
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(spec.flops() * gemms.size() * iterations / (totalTimeMs / 1e3) / 1e12, "TFLOP/s");
    }

    @Override
    public void cleanup() {
        gemms.clear();
        baseline.clear();
    }
}
