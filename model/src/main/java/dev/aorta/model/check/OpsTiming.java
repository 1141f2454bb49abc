package dev.aorta.model.check;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Attention;
import dev.aorta.model.ops.Conv2d;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * First timings of the fp32 ops at model sizes, to know where they stand before tuning: each op is warmed up,
 * then timed with device events over repeated launches, median of several repeats. Rates are against the
 * fewest FLOPs (GEMM-like ops) or bytes (layer norm: x read, y written) the op must do.
 *
 * <p>Usage: {@code OpsTiming} (GPU 0).
 */
public final class OpsTiming {
    private static final int REPEATS = 7;
    private static final int LAUNCHES = 10;

    private OpsTiming() {
    }

    public static void main(String[] args) {
        try (CudaDevice device = CudaDevice.open(0); Stream s = device.createStream(0, true);
             OpContext ctx = new OpContext(device, s)) {
            System.out.println("device: " + device.info().name());
            List<AutoCloseable> keep = new ArrayList<>();
            int n = 4096;
            int e = 768;
            int f = 3072;
            Linear lin = new Linear(ctx, "lin", e, f, true, 1);
            Tensor x = random(ctx, s, keep, n, e);
            Tensor y = random(ctx, s, keep, n, f);
            Tensor dy = random(ctx, s, keep, n, f);
            Tensor dx = random(ctx, s, keep, n, e);
            report("linear fwd 4096x768->3072 (fp32 GEMM + bias)", time(device, s, () -> lin.forward(x, y, s)),
                    2.0 * n * e * f, "GFLOP/s");
            report("linear bwd (dx, dW, db)", time(device, s, () -> lin.backward(x, dy, dx, s)), 4.0 * n * e * f, "GFLOP/s");
            LayerNorm ln = new LayerNorm(ctx, "ln", e, 1e-5f);
            Tensor ly = random(ctx, s, keep, n, e);
            Tensor mean = random(ctx, s, keep, n);
            Tensor rstd = random(ctx, s, keep, n);
            report("layer norm fwd 4096x768", time(device, s, () -> ln.forward(x, ly, mean, rstd, s)), 2.0 * n * e * 4,
                    "GB/s");
            Attention att = new Attention(ctx);
            keep.add(att);
            for (int[] d : new int[][] {{4, 12, 1024, 64}, {1, 12, 2048, 64}}) {
                Tensor q = random(ctx, s, keep, d);
                Tensor k = random(ctx, s, keep, d);
                Tensor v = random(ctx, s, keep, d);
                Tensor o = random(ctx, s, keep, d);
                Tensor dout = random(ctx, s, keep, d);
                Tensor dq = random(ctx, s, keep, d);
                Tensor dk = random(ctx, s, keep, d);
                Tensor dv = random(ctx, s, keep, d);
                Tensor lse = random(ctx, s, keep, d[0], d[1], d[2]);
                Tensor delta = random(ctx, s, keep, d[0], d[1], d[2]);
                double flops = 4.0 * d[0] * d[1] * d[2] * d[2] * d[3];
                String shape = d[0] + "x" + d[1] + "x" + d[2] + "x" + d[3];
                report("attention fwd " + shape, time(device, s, () -> att.forward(q, k, v, o, lse, false, s)), flops,
                        "GFLOP/s");
                report("attention bwd " + shape, time(device, s, () -> att.backward(q, k, v, o, lse, dout, delta, dq, dk, dv,
                        false, s)), 2.5 * flops, "GFLOP/s");
            }
            // SimpleConvNet's (async_dataload's) second convolution on a batch of 32: 64 -> 128 channels, 112 x 112
            Tensor cx = random(ctx, s, keep, 32, 64, 112, 112);
            Tensor cy = random(ctx, s, keep, 32, 128, 112, 112);
            double convFlops = 2.0 * 32 * 128 * 112 * 112 * 64 * 9;
            for (String precision : new String[] {"fp32", "tf32", "bf16"}) {
                ctx.convTf32(precision.equals("tf32"));
                ctx.autocast(precision.equals("bf16") ? DType.BF16 : null);
                Conv2d conv = new Conv2d(ctx, "conv", 64, 128, 3, 3, 1, 1, true, 1);
                keep.add(conv);
                report("conv2d fwd+relu 32x64x112x112->128 3x3 " + precision, time(device, s,
                        () -> conv.forwardRelu(cx, cy, s)), convFlops, "GFLOP/s");
            }
            ctx.convTf32(false);
            ctx.autocast(null);
            lin.close();
            ln.close();
            for (AutoCloseable c : keep) {
                try {
                    c.close();
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }
        }
    }

    private static Tensor random(OpContext ctx, Stream s, List<AutoCloseable> keep, int... shape) {
        Tensor t = ctx.empty("timing", "input", DType.FP32, shape);
        float[] v = new float[(int) t.numel()];
        java.util.SplittableRandom r = new java.util.SplittableRandom(shape.length * 31L + v.length);
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextDouble(-1, 1);
        }
        t.copyFrom(v);
        keep.add(t);
        return t;
    }

    /** Median milliseconds per call. */
    private static double time(CudaDevice device, Stream s, Runnable op) {
        op.run();
        op.run();
        s.synchronize();
        double[] ms = new double[REPEATS];
        try (Event start = device.createEvent(true); Event stop = device.createEvent(true)) {
            for (int r = 0; r < REPEATS; r++) {
                start.record(s);
                for (int i = 0; i < LAUNCHES; i++) {
                    op.run();
                }
                stop.record(s);
                stop.synchronize();
                ms[r] = stop.millisSince(start) / LAUNCHES;
            }
        }
        Arrays.sort(ms);
        return ms[REPEATS / 2];
    }

    private static void report(String what, double ms, double work, String unit) {
        double rate = work / (ms * 1e-3) / 1e9;
        System.out.printf("%-48s %9.3f ms  %9.1f %s%n", what, ms, rate, unit);
    }
}
