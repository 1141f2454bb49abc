package dev.aorta.core.metric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GEMM FLOPs and achieved TFLOP/s per shape (docs/metrics.md#gemm-throughput), TraceLens's GEMM view from the shapes a
 * trace recorded. A GEMM of shape (M, N, K) repeated over a batch of B does {@code flops = 2·M·N·K·B} (a multiply and
 * an add per term; the bias of addmm, M·N adds, is left out as TraceLens and cuBLAS's own counts leave it out). One
 * op's <b>device time</b> is the summed duration of every kernel it launched (addmm's bias broadcast as well as the
 * GEMM kernel, so the rate is what the op achieved, not the GEMM kernel alone). Per shape (M, N, K, B, element type):
 * ops, summed device time, its statistics per op, and <b>TFLOP/s</b> = ops · flops / Σ device time, in 10¹² FLOP/s;
 * undefined ({@code null}) for device time 0.
 */
public record GemmThroughput(Shape shape, int ops, long deviceNs, SampleStats perOpNs) {

    /** A GEMM's dimensions: C[M×N] = A[M×K]·B[K×N], {@code batch} times; {@code dtype} as the trace names it, or "". */
    public record Shape(long m, long n, long k, long batch, String dtype) {
        public Shape {
            if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) {
                throw new IllegalArgumentException("GEMM dimensions must be positive: M=" + m + " N=" + n + " K=" + k
                        + " batch=" + batch);
            }
            dtype = dtype == null ? "" : dtype;
        }

        /** 2·M·N·K·batch, as a double: a large batched GEMM can pass 2⁶³. */
        public double flops() {
            return 2.0 * m * n * k * batch;
        }
    }

    /** One GEMM op as it ran: its shape and the summed duration of the kernels it launched. */
    public record Op(Shape shape, long deviceNs) {
    }

    public double flopsPerOp() {
        return shape.flops();
    }

    /** ops · flops / Σ device time in TFLOP/s; null for no device time. */
    public Double tflops() {
        return deviceNs <= 0 ? null : ops * shape.flops() / deviceNs / 1e3;  // FLOP/ns = GFLOP/s
    }

    /** One entry per shape, most device time first. */
    public static List<GemmThroughput> byShape(List<Op> ops) {
        Map<Shape, SampleStats.Samples> perOp = new LinkedHashMap<>();
        Map<Shape, long[]> total = new LinkedHashMap<>();
        for (Op o : ops) {
            perOp.computeIfAbsent(o.shape(), s -> new SampleStats.Samples()).add(o.deviceNs());
            total.computeIfAbsent(o.shape(), s -> new long[1])[0] += o.deviceNs();
        }
        List<GemmThroughput> out = new ArrayList<>();
        perOp.forEach((s, samples) -> out.add(new GemmThroughput(s, samples.count(), total.get(s)[0], samples.stats())));
        out.sort((a, b) -> Long.compare(b.deviceNs(), a.deviceNs()));
        return out;
    }
}
