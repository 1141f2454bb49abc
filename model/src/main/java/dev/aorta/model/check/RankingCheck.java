package dev.aorta.model.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.model.LossScaler;
import dev.aorta.model.OpContext;
import dev.aorta.model.ParameterFile;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.ranking.RankingConfig;
import dev.aorta.model.ranking.RankingModel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One training step of the {@link RankingModel} on the GPU, written out for scripts/model-ranking-check.py,
 * which loads the same parameters into the torch module (strict) and compares loss, scores, every parameter
 * gradient, the gradient norm and the parameters after one clipped AdamW step. Three configurations (the
 * trainer's default sizes, odd sizes that are not multiples of 8, and batch 1 with T = 1), each in fp32, under
 * bf16 autocast and under fp16 autocast with loss scaling (fp32 master weights). Dropout off. Written
 * gradients and norms are unscaled.
 *
 * <p>Usage: {@code RankingCheck --out DIR [--seed N]}; writes DIR/ranking.json and one parameter file per
 * configuration. Exits 1 when our loss or a gradient is not finite (the comparison itself is the script's).
 */
public final class RankingCheck {
    static final double LR = 3e-4;
    static final double WEIGHT_DECAY = 0.01;
    static final double BETA1 = 0.9;
    static final double BETA2 = 0.98;
    static final double EPS = 1e-8;
    static final double MAX_NORM = 1.0;

    /** fp16's loss scale for the one checked step (torch's GradScaler starts at 2^16 and backs off). */
    static final float FP16_LOSS_SCALE = 1024f;

    /** Odd sizes: batch 3, T 7, nothing a multiple of 8; two layers. */
    static final RankingConfig ODD = new RankingConfig(3, 7, 3, 5, 4, 101, 12, 24, 3, 2, 20, 0f);
    /** One row: batch 1, T 1. */
    static final RankingConfig ONE = new RankingConfig(1, 1, 2, 3, 1, 17, 5, 6, 2, 1, 7, 0f);

    public static void main(String[] args) throws IOException {
        Path out = null;
        long seed = 13;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: RankingCheck --out DIR [--seed N]");
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("usage: RankingCheck --out DIR [--seed N]");
        }
        Files.createDirectories(out);
        ObjectMapper json = new ObjectMapper();
        ArrayNode manifest = json.createArrayNode();
        boolean finite = true;
        try (CudaDevice device = CudaDevice.open(0); Stream stream = device.createStream(0, true);
             OpContext ctx = new OpContext(device, stream)) {
            System.out.println("device: " + device.info().name() + " (" + device.info().arch() + ")");
            Map<String, RankingConfig> configs = new LinkedHashMap<>();
            configs.put("default", RankingConfig.DEFAULT.withDropout(0f));
            configs.put("odd", ODD);
            configs.put("one", ONE);
            for (DType precision : new DType[] {DType.FP32, DType.BF16, DType.FP16}) {
                for (Map.Entry<String, RankingConfig> e : configs.entrySet()) {
                    String name = e.getKey() + "-" + precision;
                    String file = "ranking-" + name + ".safetensors";
                    ctx.autocast(precision == DType.FP32 ? null : precision);
                    finite &= runOne(ctx, stream, e.getValue(), seed, out.resolve(file));
                    ObjectNode m = manifest.addObject();
                    m.put("name", name).put("file", file).put("precision", precision.toString());
                    if (precision == DType.FP16) {
                        m.put("loss_scale", FP16_LOSS_SCALE);
                    }
                    m.set("config", json.valueToTree(e.getValue()));
                    m.put("lr", LR).put("weight_decay", WEIGHT_DECAY).put("beta1", BETA1).put("beta2", BETA2)
                            .put("eps", EPS).put("max_norm", MAX_NORM);
                }
            }
            ctx.autocast(null);
        }
        json.writerWithDefaultPrettyPrinter().writeValue(out.resolve("ranking.json").toFile(), manifest);
        System.exit(finite ? 0 : 1);
    }

    /** One step at {@code cfg}; returns whether loss and every gradient are finite. */
    static boolean runOne(OpContext ctx, Stream s, RankingConfig cfg, long seed, Path file) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<String, HostTensor> tensors = new LinkedHashMap<>();
        int b = cfg.batch();
        int t = cfg.seq();
        try (RankingModel model = new RankingModel(ctx, cfg, rnd.nextLong());
             Tensor dense = ctx.empty("check", "dense", DType.FP32, b, t, cfg.denseFeatures(), cfg.denseDim());
             Tensor categorical = ctx.empty("check", "categorical", DType.I32, b, t, cfg.sparseFeatures());
             Tensor target = ctx.empty("check", "target", DType.FP32, b, t);
             Tensor importance = ctx.empty("check", "importance", DType.FP32, b, t);
             RankingModel.Activations a = model.activations()) {
            // biases and norm parameters away from their 0/1 starts, so that their effect is tested too
            for (Parameter p : model.parameters()) {
                int[] shape = p.value().shape();
                if (shape.length == 1) {
                    float[] r = new float[shape[0]];
                    boolean gamma = p.name().contains("norm") && p.name().endsWith("weight");
                    for (int i = 0; i < r.length; i++) {
                        r[i] = (gamma ? 1 : 0) + 0.2f * (float) (2 * rnd.nextDouble() - 1);
                    }
                    p.load(HostTensor.ofFloats(DType.FP32, shape, r));
                }
                tensors.put("param." + p.name(), p.value().toHost());
            }
            load(tensors, "dense", dense, normals(rnd, (int) dense.numel()));
            int[] ids = new int[(int) categorical.numel()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = rnd.nextInt(cfg.vocab());
            }
            categorical.copyFrom(ids);
            tensors.put("categorical", categorical.toHost());
            float[] y = new float[b * t];
            float[] w = new float[b * t];
            for (int i = 0; i < y.length; i++) {
                y[i] = rnd.nextBoolean() ? 1f : 0f;
                w[i] = 0.5f + (float) rnd.nextDouble();
            }
            load(tensors, "target", target, y);
            load(tensors, "importance", importance, w);

            model.zeroGrad(s);
            model.forward(dense, categorical, target, importance, a, seed, 0, s);
            // fp16: the loss gradient carries the scale and the step unscales (dynamic loss scaling, first step)
            LossScaler scaler = ctx.autocast() == DType.FP16 ? new LossScaler(FP16_LOSS_SCALE, 2, 0.5, 2000) : null;
            float scale = scaler == null ? 1f : scaler.scale();
            model.backward(dense, categorical, target, importance, scale, a, seed, 0, s);
            boolean finite = true;
            tensors.put("out.scores", a.scores().toHost());
            tensors.put("out.loss", a.loss().toHost());
            finite &= allFinite(a.loss().toFloats());
            List<Parameter> params = model.parameters();
            for (Parameter p : params) {
                float[] g = p.grad().toFloats();
                for (int i = 0; i < g.length; i++) {
                    g[i] /= scale; // a power of two: exact
                }
                finite &= allFinite(g);
                tensors.put("grad." + p.name(), HostTensor.ofFloats(DType.FP32, p.grad().shape(), g));
            }
            try (AdamW opt = new AdamW(ctx, params, BETA1, BETA2, EPS, WEIGHT_DECAY, s)) {
                if (scaler != null) {
                    finite &= scaler.step(opt, LR, MAX_NORM, s);
                } else {
                    opt.step(LR, MAX_NORM, s);
                }
                tensors.put("out.grad_norm", HostTensor.ofFloats(DType.FP32, new int[] {1},
                        new float[] {opt.gradNorm().toFloats()[0] / scale}));
                for (Parameter p : params) {
                    tensors.put("step." + p.name(), p.value().toHost());
                }
            }
            System.out.printf("%s: loss %.7f, grad norm %.6f, %d parameter tensors%s%n", file.getFileName(),
                    tensors.get("out.loss").toFloats()[0], tensors.get("out.grad_norm").toFloats()[0],
                    params.size(), finite ? "" : ", NOT FINITE");
            ParameterFile.write(file, tensors);
            return finite;
        }
    }

    private static void load(Map<String, HostTensor> tensors, String name, Tensor t, float[] values) {
        t.copyFrom(values);
        tensors.put(name, HostTensor.ofFloats(DType.FP32, t.shape(), values));
    }

    private static float[] normals(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i += 2) {
            double u1 = 1 - rnd.nextDouble();
            double u2 = rnd.nextDouble();
            double r = Math.sqrt(-2 * Math.log(u1));
            v[i] = (float) (r * Math.cos(2 * Math.PI * u2));
            if (i + 1 < n) {
                v[i + 1] = (float) (r * Math.sin(2 * Math.PI * u2));
            }
        }
        return v;
    }

    private static boolean allFinite(float[] v) {
        for (float x : v) {
            if (!Float.isFinite(x)) {
                return false;
            }
        }
        return true;
    }
}
