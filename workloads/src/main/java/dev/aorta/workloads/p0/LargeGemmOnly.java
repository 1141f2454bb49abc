package dev.aorta.workloads.p0;

import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuSession;
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
import java.util.Locale;
import java.util.Optional;

/**
 * One large GEMM per stream per iteration (AORTA: 8192³): each fills the device, so extra streams
 * should neither help nor hurt; its TFLOP/s next to a plain cuBLAS loop shows the harness's cost. The check compares
 * three runs of {@link #CHECKED_ROWS} entries of every stream's C with a float64 reference ({@link GemmReference});
 * AORTA checks nothing.
 */
public final class LargeGemmOnly implements Workload {
    /** Rows of each of the three runs of C checked per stream. */
    static final int CHECKED_ROWS = 32;
    private final List<Op> gemms = new ArrayList<>();
    private final List<PreparedGemm> baseline = new ArrayList<>();
    private final List<GpuBuffer> outputs = new ArrayList<>();
    private GemmSpec spec;
    private GpuSession gpu;

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
        gpu = context.gpu();
        List<GpuStream> streams = context.streams();
        for (int s = 0; s < streams.size(); s++) {
            GpuBuffer a = context.randomBuffer(spec.bytesA() / spec.dtype().bytes(), spec.dtype(), 2 * s);
            GpuBuffer b = context.randomBuffer(spec.bytesB() / spec.dtype().bytes(), spec.dtype(), 2 * s + 1);
            GpuBuffer c = context.allocate(spec.bytesC());
            outputs.add(c);
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
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /**
     * Stream s's GEMM multiplies the operands filled with seeds 2s and 2s + 1, and every iteration writes the same C.
     * Three runs of {@link #CHECKED_ROWS} rows are read back: the top of the first column, the middle of the middle
     * one and the bottom of the last (a GEMM cut short or tiled wrongly misses one of them).
     */
    @Override
    public Optional<String> correctnessProblem() {
        int rows = Math.min(CHECKED_ROWS, spec.m());
        long[][] runs = {{0, 0}, {(spec.m() - rows) / 2, spec.n() / 2}, {spec.m() - rows, spec.n() - 1}};
        for (int s = 0; s < outputs.size(); s++) {
            for (long[] run : runs) {
                long first = run[0] + run[1] * spec.m();   // column-major: a column's rows are contiguous
                long fromByte = first * spec.dtype().bytes() / 4 * 4;
                long toByte = Math.min(spec.bytesC() / 4 * 4, ((first + rows) * spec.dtype().bytes() + 3) / 4 * 4);
                int[] words = gpu.readInts(outputs.get(s), fromByte, (int) ((toByte - fromByte) / 4));
                long firstInWords = fromByte / spec.dtype().bytes();
                for (long e = first; e < first + rows && e * spec.dtype().bytes() < toByte; e++) {
                    int i = (int) (e % spec.m());
                    int j = (int) (e / spec.m());
                    double expected = GemmReference.entry(spec, 2 * s, 2 * s + 1, i, j);
                    float got = GemmReference.element(spec.dtype(), words, e - firstInWords);
                    double tolerance = GemmReference.tolerance(spec.dtype(), spec.k(), expected);
                    if (!(Math.abs(got - expected) <= tolerance)) {
                        return Optional.of(String.format(Locale.ROOT, "large_gemm_only stream %d: C[%d,%d] = %s, "
                                + "expected %.6g within %.3g (float64 over the %s operands)", s, i, j, got, expected,
                                tolerance, spec.dtype().label()));
                    }
                }
            }
        }
        return Optional.empty();
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
        outputs.clear();
    }
}
