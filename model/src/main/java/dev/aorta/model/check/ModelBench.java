package dev.aorta.model.check;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ops.Attention;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.EmbeddingMeanPool;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.TransformerEncoderLayer;
import dev.aorta.model.ranking.RankingConfig;
import dev.aorta.model.ranking.RankingModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Device time of our ops and of the ranking model's training step at the trainer's default sizes, from CUPTI
 * kernel records (the counterpart of scripts/model-bench.py, which measures PyTorch eager with
 * torch.profiler). Each op runs {@code WARMUP} times untimed, then {@code ITERS} times under the tracer; a
 * row is the summed duration of the kernels (and memsets) it launched, per iteration. Dropout is off on both
 * sides (our attention has no probability dropout yet, so p > 0 would not be the same function).
 *
 * <p>Usage: {@code ModelBench [--iters N] [--bf16]} (--bf16: under bf16 autocast); prints one line per op: {@code op  us/iter  kernels/iter}, the
 * kernels by name of linear+gelu fwd, layer norm fwd+bwd and the step.
 */
public final class ModelBench {
    private static final int WARMUP = 5;

    private final OpContext ctx;
    private final Stream s;
    private final CuptiTracer tracer;
    private final ConcurrentLinkedQueue<DeviceActivity> records;
    private final int iters;
    private final SplittableRandom rnd = new SplittableRandom(7);
    private final List<AutoCloseable> keep = new ArrayList<>();

    ModelBench(OpContext ctx, Stream s, CuptiTracer tracer, ConcurrentLinkedQueue<DeviceActivity> records, int iters) {
        this.ctx = ctx;
        this.s = s;
        this.tracer = tracer;
        this.records = records;
        this.iters = iters;
    }

    public static void main(String[] args) throws Exception {
        int iters = 20;
        DType autocast = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--bf16" -> autocast = DType.BF16;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: ModelBench [--iters N] [--bf16]");
            }
        }
        ConcurrentLinkedQueue<DeviceActivity> records = new ConcurrentLinkedQueue<>();
        try (CudaDevice device = CudaDevice.open(0); Stream stream = device.createStream(0, true);
             OpContext ctx = new OpContext(device, stream);
             CuptiTracer tracer = CuptiTracer.start(records::add, null, 0, false)) {
            ctx.autocast(autocast);
            System.out.println("device: " + device.info().name() + ", ours, " + (autocast == null ? "fp32"
                    : "autocast " + autocast) + ", CUPTI kernel time");
            System.out.printf("%-40s %12s %9s%n", "op", "us/iter", "kernels");
            new ModelBench(ctx, stream, tracer, records, iters).runAll();
        }
    }

    void runAll() throws Exception {
        RankingConfig c = RankingConfig.DEFAULT.withDropout(0f);
        int b = c.batch();
        int t = c.seq();
        int m = c.modelDim();
        int h = c.mlpHidden();
        int rows = c.rows();

        Linear qkv = own(new Linear(ctx, "qkv", m, 3 * m, true, 1));
        Tensor x = random(b, t, m);
        // under autocast the in-projection writes 16-bit rows, as the encoder layer's does (and torch's addmm)
        Tensor y3 = ctx.autocast() == null ? random(b, t, 3 * m)
                : own(ctx.empty("bench", "qkv 16-bit", ctx.autocast(), b, t, 3 * m));
        Tensor dy3 = random(b, t, 3 * m);
        Tensor dx = random(b, t, m);
        // torch's autocast casts a leaf tensor such as model-bench.py's x once per autocast block and reuses the
        // copy; ours gets x's 16-bit copy handed over, as a layer norm hands over its output's in the model
        Tensor xLow = ctx.autocast() == null ? null : own(ctx.empty("bench", "x 16-bit", ctx.autocast(), b, t, m));
        if (xLow != null) {
            new Elementwise(ctx).roundTo16(x, xLow, s);
        }
        time("linear fwd 512x768->2304", () -> qkv.forward(x, xLow, y3, s));
        time("linear fwd+bwd 512x768->2304", () -> {
            qkv.forward(x, xLow, y3, s);
            qkv.backward(x, dy3, dx, s);
        });

        Linear ff = own(new Linear(ctx, "ff", m, h, true, 1));
        // under autocast the pre-activation is kept in 16 bits, as the encoder layer keeps it (and torch addmm's)
        Tensor pre = ctx.autocast() == null ? random(b, t, h)
                : own(ctx.empty("bench", "pre 16-bit", ctx.autocast(), b, t, h));
        Tensor hid = random(b, t, h);
        // under autocast the encoder layer keeps only GELU's 16-bit output (the next GEMM's operand), as torch,
        // whose output is bf16 only; without autocast the fp32 output
        Tensor hidLow = ctx.autocast() == null ? null : own(ctx.empty("bench", "gelu 16-bit", ctx.autocast(), b, t, h));
        printByName("linear+gelu fwd", time("linear+gelu fwd 512x768->2048",
                () -> ff.forwardGelu(x, xLow, pre, hidLow == null ? hid : null, hidLow, s)));
        time("linear+gelu fwd+bwd 512x768->2048", () -> {
            ff.forwardGelu(x, xLow, pre, hid, s);
            ff.backwardGelu(x, pre, hid, dx, s);
        });

        LayerNorm ln = own(new LayerNorm(ctx, "ln", m, 1e-5f));
        Tensor mean = random(rows);
        Tensor rstd = random(rows);
        Tensor y = random(b, t, m);
        time("layer norm fwd 512x768", () -> ln.forward(x, y, mean, rstd, s));
        printByName("layer norm fwd+bwd", time("layer norm fwd+bwd 512x768", () -> {
            ln.forward(x, y, mean, rstd, s);
            ln.backward(x, mean, rstd, y, dx, s);
        }));

        Attention att = own(new Attention(ctx));
        int nh = c.heads();
        int d = m / nh;
        // under autocast the encoder layer's head-layout pass writes 16-bit q, k, v (as torch's layer hands SDPA
        // bf16 ones, which model-bench.py's leaves are): the tensor-core kernels, no cast timed on either side
        Tensor q = random16(b, nh, t, d);
        Tensor k = random16(b, nh, t, d);
        Tensor v = random16(b, nh, t, d);
        Tensor o = random(b, nh, t, d);
        Tensor lse = random(b, nh, t);
        Tensor delta = random(b, nh, t);
        Tensor dq = random(b, nh, t, d);
        Tensor dk = random(b, nh, t, d);
        Tensor dv = random(b, nh, t, d);
        time("attention fwd 8x12x64x64", () -> att.forward(q, k, v, o, lse, false, s));
        time("attention fwd+bwd 8x12x64x64", () -> {
            att.forward(q, k, v, o, lse, false, s);
            att.backward(q, k, v, o, lse, o, delta, dq, dk, dv, false, s);
        });

        EmbeddingMeanPool emb = own(new EmbeddingMeanPool(ctx, "emb", c.vocab(), c.embeddingDim(), 1));
        Tensor ids = own(ctx.empty("bench", "ids", DType.I32, rows, c.sparseFeatures()));
        int[] idv = new int[rows * c.sparseFeatures()];
        for (int i = 0; i < idv.length; i++) {
            idv[i] = rnd.nextInt(c.vocab());
        }
        ids.copyFrom(idv);
        Tensor pooled = random(rows, c.embeddingDim());
        time("embedding mean fwd 512x32 of 60000x192", () -> emb.forward(ids, pooled, s));
        time("embedding mean fwd+bwd 512x32 of 60000x192", () -> {
            emb.forward(ids, pooled, s);
            emb.backward(ids, pooled, s);
        });

        TransformerEncoderLayer layer = own(new TransformerEncoderLayer(ctx, "", m, nh, h, 0f, 1));
        TransformerEncoderLayer.Activations la = own(layer.activations(b, t));
        time("encoder layer fwd", () -> layer.forward(x, xLow, y, null, la, 1, 0, s));
        time("encoder layer fwd+bwd", () -> {
            layer.forward(x, xLow, y, null, la, 1, 0, s);
            layer.backward(x, y, dx, la, 1, 0, s);
        });

        RankingModel model = own(new RankingModel(ctx, c, 1));
        Tensor dense = random(b, t, c.denseFeatures(), c.denseDim());
        Tensor cat = own(ctx.empty("bench", "categorical", DType.I32, b, t, c.sparseFeatures()));
        cat.copyFrom(idv);
        Tensor target = random(b, t);
        Tensor importance = random(b, t);
        RankingModel.Activations a = own(model.activations());
        AdamW opt = own(new AdamW(ctx, model.parameters(), 0.9, 0.98, 1e-8, 0.01, s));
        time("adamw + clip, all parameters", () -> opt.step(3e-4, 1.0, s));
        List<DeviceActivity> step = time("step: fwd + bwd + adamw", () -> {
            opt.zeroGrad(s);
            model.forward(dense, cat, target, importance, a, 1, 0, s);
            model.backward(dense, cat, target, importance, 1f, a, 1, 0, s);
            opt.step(3e-4, 1.0, s);
        });
        printByName("step", step);
        for (int i = keep.size() - 1; i >= 0; i--) {
            keep.get(i).close();
        }
    }

    /** Runs {@code op} untimed, then traced; prints and returns the traced records. */
    private List<DeviceActivity> time(String name, Runnable op) {
        for (int i = 0; i < WARMUP; i++) {
            op.run();
        }
        ctx.device().synchronize();
        tracer.flush();
        records.clear();
        for (int i = 0; i < iters; i++) {
            op.run();
        }
        ctx.device().synchronize();
        tracer.flush();
        List<DeviceActivity> got = new ArrayList<>(records);
        records.clear();
        long ns = 0;
        int kernels = 0;
        for (DeviceActivity r : got) {
            if (r.kind() == ActivityKind.KERNEL || r.kind() == ActivityKind.MEMSET) {
                ns += r.durationNs();
                kernels++;
            }
        }
        System.out.printf("%-40s %12.1f %9.1f%n", name, ns / 1e3 / iters, kernels / (double) iters);
        return got;
    }

    /** {@code what}'s kernels by name, longest first (where an op's time goes, beside torch's, model-bench.py). */
    private void printByName(String what, List<DeviceActivity> got) {
        Map<String, long[]> byName = new TreeMap<>();
        for (DeviceActivity r : got) {
            if (r.kind() == ActivityKind.KERNEL || r.kind() == ActivityKind.MEMSET) {
                String n = r.kind() == ActivityKind.MEMSET ? "(memset)" : r.name();
                long[] v = byName.computeIfAbsent(n.length() > 60 ? n.substring(0, 60) : n, k -> new long[2]);
                v[0] += r.durationNs();
                v[1]++;
            }
        }
        System.out.println(what + " kernels by name (us/iter, launches/iter):");
        byName.entrySet().stream().sorted((p, q) -> Long.compare(q.getValue()[0], p.getValue()[0]))
                .forEach(e -> System.out.printf("  %-60s %9.1f %7.1f%n", e.getKey(), e.getValue()[0] / 1e3 / iters,
                        e.getValue()[1] / (double) iters));
    }

    /** Random values in the autocast dtype under autocast, else fp32. */
    private Tensor random16(int... shape) {
        Tensor x = random(shape);
        if (ctx.autocast() == null) {
            return x;
        }
        Tensor low = own(ctx.empty("bench", "input 16-bit", ctx.autocast(), shape));
        new Elementwise(ctx).roundTo16(x, low, s);
        return low;
    }

    private Tensor random(int... shape) {
        Tensor x = own(ctx.empty("bench", "input", DType.FP32, shape));
        float[] v = new float[(int) x.numel()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (rnd.nextDouble() - 0.5);
        }
        x.copyFrom(v);
        return x;
    }

    private <T extends AutoCloseable> T own(T x) {
        keep.add(x);
        return x;
    }
}
