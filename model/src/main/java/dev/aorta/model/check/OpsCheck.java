package dev.aorta.model.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.model.LrSchedule;
import dev.aorta.model.OpContext;
import dev.aorta.model.ParameterFile;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ops.Attention;
import dev.aorta.model.ops.BceWithLogits;
import dev.aorta.model.ops.CachedSelfAttention;
import dev.aorta.model.ops.Concat;
import dev.aorta.model.ops.Conv2d;
import dev.aorta.model.ops.GlobalAvgPool;
import dev.aorta.model.ops.MaxPool2d;
import dev.aorta.model.ops.MlpBlock;
import dev.aorta.model.ops.CrossEntropy;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.EmbeddingMeanPool;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.ops.Softmax;
import dev.aorta.model.ops.TopKGating;
import dev.aorta.model.ops.TransformerEncoderLayer;
import dev.aorta.model.reference.RefAttention;
import dev.aorta.model.reference.RefConv;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefEmbedding;
import dev.aorta.model.reference.RefGating;
import dev.aorta.model.reference.RefEncoderLayer;
import dev.aorta.model.reference.RefLayerNorm;
import dev.aorta.model.reference.RefLinear;
import dev.aorta.model.reference.RefLoss;
import dev.aorta.model.reference.RefSelfAttention;
import dev.aorta.model.reference.RefOptim;
import dev.aorta.model.reference.RefSoftmax;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Runs each op forward and backward on the GPU over several shapes (odd sizes, one row, one element) and
 * compares every output and gradient with the float64 CPU reference. With an output folder it also writes
 * each case's inputs, parameters, outputs and gradients as a parameter file plus {@code cases.json}, which
 * scripts/model-ops-check.py feeds to PyTorch for the second comparison.
 *
 * <p>Usage: {@code OpsCheck [--out DIR] [--seed N] [--small]}; exits 1 when a comparison fails.
 */
public final class OpsCheck {
    /** fp32 ops against a float64 reference (the bar). */
    public static final double FP32_TOLERANCE = 1e-5;
    /** Ops whose GEMMs run on bf16 or fp16 operands (fp32 accumulation), against the float64 reference. */
    public static final double BF16_TOLERANCE = 2e-2;
    /**
     * fp32 convolutions on TF32 tensor cores (10-bit mantissas, unit roundoff 2^-11 ≈ 4.9e-4 per operand, fp32
     * accumulation): about 1e-3 relative L2 expected, 5e-3 leaves room.
     */
    public static final double TF32_TOLERANCE = 5e-3;
    /** Attention's bar (its reductions run over T and D). */
    public static final double ATTENTION_TOLERANCE = 1e-4;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpContext ctx;
    private final Stream s;
    private final SplittableRandom rnd;
    private final Path out;
    private final List<CheckRow> rows = new ArrayList<>();
    private final ArrayNode manifest = JSON.createArrayNode();

    public OpsCheck(OpContext ctx, Stream s, long seed, Path out) {
        this.ctx = ctx;
        this.s = s;
        this.rnd = new SplittableRandom(seed);
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        Path out = null;
        long seed = 13;
        boolean small = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--small" -> small = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: OpsCheck [--out DIR] [--seed N] [--small]");
            }
        }
        if (out != null) {
            Files.createDirectories(out);
        }
        List<CheckRow> result;
        try (CudaDevice device = CudaDevice.open(0); Stream stream = device.createStream(0, true);
             OpContext ctx = new OpContext(device, stream)) {
            System.out.println("device: " + device.info().name() + " (" + device.info().arch() + ")");
            result = new OpsCheck(ctx, stream, seed, out).runAll(!small);
        }
        print(result, System.out);
        System.exit(result.stream().allMatch(CheckRow::passed) ? 0 : 1);
    }

    public static void print(List<CheckRow> rows, PrintStream p) {
        p.printf("%-34s %-28s %10s %11s %9s  %s%n", "case", "tensor", "elements", "rel L2", "tol", "");
        for (CheckRow r : rows) {
            p.printf("%-34s %-28s %10d %11.3e %9.0e  %s%n", r.caseName(), r.tensor(), r.elements(), r.relL2(),
                    r.tolerance(), r.passed() ? "ok" : "FAIL");
        }
        long failed = rows.stream().filter(r -> !r.passed()).count();
        p.println(failed == 0 ? "all " + rows.size() + " comparisons within tolerance"
                : failed + " of " + rows.size() + " comparisons FAILED");
    }

    /** Every case; {@code large} adds the model-sized shapes. Writes cases.json last when there is a folder. */
    public List<CheckRow> runAll(boolean large) {
        // 300 rows: the dy pass (bias_grad) loads 8 rows per thread at a time, 256 rows per block, then a part
        for (int[] d : large ? new int[][] {{1, 1, 1}, {5, 7, 3}, {3, 17, 33}, {64, 768, 3072}, {129, 1023, 77},
                {300, 24, 21}} : new int[][] {{1, 1, 1}, {5, 7, 3}, {3, 17, 33}}) {
            linear(d[0], d[1], d[2], false);
            linear(d[0], d[1], d[2], true);
            linear(d[0], d[1], d[2], false, DType.BF16);
            linear(d[0], d[1], d[2], true, DType.BF16);
            linear(d[0], d[1], d[2], false, DType.FP16);
        }
        // rows up to 1024 wide (a multiple of 4) take the register-row backward pass, others one float at a time;
        // the parameter gradients go by column tiles (32 columns with 16-byte loads, else 8) by row chunks,
        // summed across chunks by the last block of a tile (on 132 SMs): one chunk (7x5, 8x2049), two (33x768),
        // 5 of 103 rows (512x768), 10 of 30 rows on part of a tile (300x24), 32 chunks of 32 rows, the last of 8,
        // on 8-column tiles and part of one (1000x13), 32 chunks of 282 rows, three rounds of loads (9000x20)
        for (int[] d : large ? new int[][] {{1, 1}, {3, 7}, {3, 8}, {1, 4}, {7, 5}, {33, 768}, {512, 768},
                {2000, 12}, {5, 1024}, {8, 2049}, {300, 24}, {1000, 13}, {9000, 20}}
                : new int[][] {{1, 1}, {3, 7}, {3, 8}, {1, 4}, {7, 5}}) {
            layerNorm(d[0], d[1], false);
            layerNorm(d[0], d[1], true);
            softmax(d[0], d[1]);
            bce(d[0], d[1]);
        }
        // multiples of 4 take GELU's 16-byte path
        for (int n : large ? new int[] {1, 7, 8, 1_000_003, 1_048_576} : new int[] {1, 7, 8, 1001}) {
            elementwise(n);
            relu(n);
        }
        for (int[] d : large ? new int[][] {{1, 1}, {5, 3}, {37, 1000}, {512, 50257}} : new int[][] {{1, 1}, {5, 3}, {37, 1000}}) {
            crossEntropy(d[0], d[1], false);
            crossEntropy(d[0], d[1], true);
        }
        for (int[] d : new int[][] {{1, 1, 1}, {5, 8, 2}, {33, 64, 8}, {7, 3, 3}}) {
            topKGating(d[0], d[1], d[2]);
        }
        for (int[] d : new int[][] {{1, 1, 1, 1}, {7, 3, 5, 1}, {64, 768, 768, 192}}) {
            concat(d[0], d[1], d[2], d[3]);
        }
        // odd sizes, strides 1 to 3, padding 0 to 2, non-square kernels; large: SimpleConvNet's first layer and a
        // batch whose columns take two passes of the scratch (10 x 576 x 12544 elements > 64 Mi)
        for (int[] d : large ? new int[][] {{1, 1, 1, 1, 1, 1, 1, 1, 0}, {2, 3, 5, 6, 4, 3, 2, 2, 1},
                {3, 5, 13, 11, 7, 3, 3, 1, 1}, {2, 4, 9, 7, 6, 5, 3, 3, 2}, {4, 16, 17, 19, 33, 3, 3, 1, 1},
                {8, 64, 32, 32, 128, 3, 3, 1, 1}, {2, 3, 224, 224, 64, 3, 3, 1, 1}, {10, 64, 112, 112, 2, 3, 3, 1, 1}}
                : new int[][] {{1, 1, 1, 1, 1, 1, 1, 1, 0}, {2, 3, 5, 6, 4, 3, 2, 2, 1}, {3, 5, 13, 11, 7, 3, 3, 1, 1},
                {2, 4, 9, 7, 6, 5, 3, 3, 2}}) {
            conv2d(new RefConv.Shape(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]), null);
        }
        // the tensor-core paths: TF32 (torch's default for fp32 convolutions), bf16 and fp16 autocast
        for (int[] d : large ? new int[][] {{2, 3, 5, 6, 4, 3, 2, 2, 1}, {3, 5, 13, 11, 7, 3, 3, 1, 1},
                {8, 64, 32, 32, 128, 3, 3, 1, 1}}
                : new int[][] {{2, 3, 5, 6, 4, 3, 2, 2, 1}, {3, 5, 13, 11, 7, 3, 3, 1, 1}}) {
            for (String precision : new String[] {"tf32", "bf16", "fp16"}) {
                conv2d(new RefConv.Shape(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]), precision);
            }
        }
        for (int[] d : new int[][] {{1, 1, 1, 1, 1, 1, 0}, {2, 3, 7, 9, 3, 2, 1}, {4, 16, 32, 32, 2, 2, 0}}) {
            maxPool(d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
        }
        for (int[] d : new int[][] {{1, 1, 1, 1}, {3, 5, 7, 9}, {8, 512, 7, 7}}) {
            globalAvgPool(d[0], d[1], d[2], d[3]);
        }
        mlpBlock(1, 1, 1, 1);
        mlpBlock(3, 5, 12, 20);
        mlpBlock(8, 64, 768, 2048);
        cachedAttention(1, 8, 2, new int[] {1, 1, 1, 1, 1});
        cachedAttention(2, 12, 3, new int[] {3, 1, 1, 1, 1});
        cachedAttention(2, 64, 4, new int[] {32, 8, 1});
        for (int[] d : large ? new int[][] {{1, 1, 3, 1}, {4, 7, 11, 5}, {32, 50, 1000, 300}}
                : new int[][] {{1, 1, 3, 1}, {4, 7, 11, 5}}) {
            embedding(d[0], d[1], d[2], d[3]);
        }
        // each case through both fp32 paths (2x3x64x64 is the ranking model's head)
        for (int[] d : large ? new int[][] {{1, 1, 1, 1}, {2, 3, 7, 5}, {2, 3, 64, 64}, {1, 2, 33, 40}, {1, 2, 64, 33},
                {1, 2, 129, 64}, {2, 2, 77, 128}, {1, 1, 2048, 64}}
                : new int[][] {{1, 1, 1, 1}, {2, 3, 7, 5}, {1, 2, 37, 64}}) {
            attention(d[0], d[1], d[2], d[3], false);
            attention(d[0], d[1], d[2], d[3], true);
        }
        // 16-bit q, k, v (autocast): the tensor-core kernels; T a multiple of 64 with D = 64 takes the full-tile
        // instance (one tile: 64; several: 128, 2048), the rest the bounds-checked one (T = 1, 37, 130; D = 5, 33, 40)
        for (int[] d : large ? new int[][] {{1, 1, 1, 1}, {2, 3, 7, 5}, {1, 1, 1, 64}, {1, 2, 37, 64}, {2, 3, 64, 64},
                {1, 2, 64, 64}, {1, 2, 130, 64}, {1, 2, 128, 64}, {1, 2, 33, 40}, {1, 2, 64, 33}, {8, 12, 64, 64},
                {1, 1, 2048, 64}} : new int[][] {{1, 1, 1, 1}, {1, 2, 37, 64}, {2, 3, 64, 64}}) {
            attention16(d[0], d[1], d[2], d[3], false, DType.BF16);
            attention16(d[0], d[1], d[2], d[3], true, DType.BF16);
            attention16(d[0], d[1], d[2], d[3], d[2] % 2 == 1, DType.FP16);
        }
        for (int[] d : large ? new int[][] {{1, 1, 8, 2, 16}, {2, 7, 12, 3, 20}, {2, 65, 256, 4, 1024}}
                : new int[][] {{1, 1, 8, 2, 16}, {2, 7, 12, 3, 20}}) {
            encoderLayer(d[0], d[1], d[2], d[3], d[4]);
        }
        // under autocast: heads of 64 at T = 64 (the full-tile attention), and odd ones (the bounds-checked)
        encoderLayer(2, 64, 128, 2, 256, DType.BF16);
        encoderLayer(2, 64, 128, 2, 256, DType.FP16);
        encoderLayer(2, 7, 12, 3, 20, DType.BF16);
        adamw(new int[][] {{7}, {3, 5}, {1}}, 3);
        adamw(new int[][] {{7}, {3, 5}, {1}}, 3, 1024f);
        for (DType t : new DType[] {DType.BF16, DType.FP16}) {
            linearAfterStep(3, 5, 7, t);
            linearAfterStep(64, 768, 2304, t);
        }
        if (out != null) {
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve("cases.json").toFile(), manifest);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return rows;
    }

    void linear(int n, int in, int outF, boolean gelu) {
        linear(n, in, outF, gelu, null);
    }

    /** With {@code autocast} bf16 or fp16: the GEMMs on 16-bit copies (fp32 in and out), the bf16 bar. */
    void linear(int n, int in, int outF, boolean gelu, DType autocast) {
        String op = gelu ? "linear_gelu" : "linear";
        try (Case c = new Case(op + (autocast == null ? "" : "_" + autocast) + "_" + n + "x" + in + "x" + outF, op)) {
            if (autocast != null) {
                c.tolerance = BF16_TOLERANCE;
                c.meta.put("tolerance", BF16_TOLERANCE);
            }
            ctx.autocast(autocast);
            Linear lin = c.own(new Linear(ctx, "lin", in, outF, true, rnd.nextLong()));
            Tensor x = c.input("x", n, in);
            Tensor y = c.output(n, outF);
            // under autocast the pre-activation in 16 bits, as the encoder layer keeps it (and torch addmm's)
            Tensor pre = !gelu ? null : autocast == null ? c.output(n, outF)
                    : c.own(Tensor.empty(ctx.device(), "check", "pre 16-bit", autocast, n, outF));
            // under autocast GELU also writes y's 16-bit copy for the next GEMM
            Tensor yLow = gelu && autocast != null
                    ? c.own(Tensor.empty(ctx.device(), "check", "y 16-bit", autocast, n, outF)) : null;
            Tensor dy = c.input("dy", n, outF);
            Tensor dx = c.output(n, in);
            lin.zeroGrad(s);
            if (gelu) {
                lin.forwardGelu(x, null, pre, y, yLow, s);
            } else {
                lin.forward(x, y, s);
            }
            c.record("param.weight", lin.weight().value());
            c.record("param.bias", lin.bias().value());
            float[] yOurs = c.result("out.y", y);
            if (yLow != null) {
                // exact: the same round-to-nearest-even of the same fp32 values
                rows.add(new CheckRow(c.name, "y 16-bit copy", yOurs.length, CheckRow.relL2(yLow.toFloats(),
                        HostTensor.ofFloats(autocast, y.shape(), yOurs).toDoubles()), 0));
                // the encoder layer's call: the 16-bit copy alone, bit for bit the same
                Tensor lowOnly = c.own(Tensor.empty(ctx.device(), "check", "y 16-bit alone", autocast, n, outF));
                lin.forwardGelu(x, null, pre, null, lowOnly, s);
                float[] withY = yLow.toFloats();
                double[] expected = new double[withY.length];
                for (int i = 0; i < withY.length; i++) {
                    expected[i] = withY[i];
                }
                rows.add(new CheckRow(c.name, "y 16-bit copy without fp32 y", withY.length,
                        CheckRow.relL2(lowOnly.toFloats(), expected), 0));
            }
            if (gelu) {
                lin.backwardGelu(x, pre, dy, dx, s);
            } else {
                lin.backward(x, dy, dx, s);
            }
            double[] xd = c.values("x");
            double[] w = c.values("param.weight");
            double[] b = c.values("param.bias");
            double[] dyd = c.values("dy");
            double[] preRef = RefLinear.forward(xd, w, b, n, in, outF);
            double[] dPre = gelu ? RefElementwise.geluBackward(preRef, dyd) : dyd;
            RefLinear.Grads g = RefLinear.backward(xd, w, dPre, n, in, outF);
            c.compare("y", yOurs, gelu ? RefElementwise.gelu(preRef) : preRef);
            c.compare("dx", c.result("grad.x", dx), g.dx());
            c.compare("dweight", c.result("grad.weight", lin.weight().grad()), g.dw());
            c.compare("dbias", c.result("grad.bias", lin.bias().grad()), g.db());
        } finally {
            ctx.autocast(null);
        }
    }

    /**
     * With {@code residual}: the fused residual add (sum = x + residual, normalised) and a gradient arriving
     * by two paths (dy + dy2, summed inside the backward pass), against the reference on x + residual and
     * dy + dy2.
     */
    void layerNorm(int n, int dim, boolean residual) {
        try (Case c = new Case("layer_norm_" + (residual ? "residual_" : "") + n + "x" + dim, "layer_norm")) {
            c.meta.put("eps", 1e-5);
            LayerNorm ln = c.own(new LayerNorm(ctx, "ln", dim, 1e-5f));
            // random γ and β, so their gradients and effect are really tested
            ln.parameters().get(0).load(HostTensor.ofFloats(DType.FP32, new int[] {dim}, c.randoms(dim)));
            ln.parameters().get(1).load(HostTensor.ofFloats(DType.FP32, new int[] {dim}, c.randoms(dim)));
            Tensor x = c.input("x", n, dim);
            Tensor r = residual ? c.input("residual", n, dim) : null;
            Tensor sum = residual ? c.output(n, dim) : null;
            // with the residual also the 16-bit copy of y for the next autocast GEMM
            Tensor yLow = residual ? c.own(Tensor.empty(ctx.device(), "check", "y bf16", DType.BF16, n, dim)) : null;
            Tensor y = c.output(n, dim);
            Tensor mean = c.output(n);
            Tensor rstd = c.output(n);
            Tensor dy = c.input("dy", n, dim);
            Tensor dy2 = residual ? c.input("dy2", n, dim) : null;
            Tensor dx = c.output(n, dim);
            ln.zeroGrad(s);
            if (residual) {
                ln.forwardResidual(x, r, sum, y, yLow, mean, rstd, s);
                ln.backward(sum, mean, rstd, dy, dy2, dx, s);
            } else {
                ln.forward(x, y, mean, rstd, s);
                ln.backward(x, mean, rstd, dy, dx, s);
            }
            c.record("param.weight", ln.parameters().get(0).value());
            c.record("param.bias", ln.parameters().get(1).value());
            double[] xd = c.values("x");
            double[] dyd = c.values("dy");
            if (residual) {
                double[] rd = c.values("residual");
                double[] dy2d = c.values("dy2");
                for (int i = 0; i < xd.length; i++) {
                    xd[i] += rd[i];
                    dyd[i] += dy2d[i];
                }
                c.compare("sum", c.result("out.sum", sum), xd);
            }
            double[] gamma = c.values("param.weight");
            RefLayerNorm.Grads g = RefLayerNorm.backward(xd, gamma, dyd, n, dim, 1e-5);
            float[] yOurs = c.result("out.y", y);
            c.compare("y", yOurs, RefLayerNorm.forward(xd, gamma, c.values("param.bias"), n, dim, 1e-5));
            if (residual) {
                // exact: the same round-to-nearest-even of the same fp32 values
                rows.add(new CheckRow(c.name, "y bf16 copy", yOurs.length, CheckRow.relL2(yLow.toFloats(),
                        HostTensor.ofFloats(DType.BF16, y.shape(), yOurs).toDoubles()), 0));
            }
            c.compare("dx", c.result("grad.x", dx), g.dx());
            float[] dgamma = c.result("grad.weight", ln.parameters().get(0).grad());
            float[] dbeta = c.result("grad.bias", ln.parameters().get(1).grad());
            c.compare("dweight", dgamma, g.dgamma());
            c.compare("dbias", dbeta, g.dbeta());
            // again on the same layer: bitwise the same parameter gradients (a fixed summation order, whichever
            // block adds the chunks; the tickets back at 0 after the first pass)
            ln.zeroGrad(s);
            ln.backward(residual ? sum : x, mean, rstd, dy, dy2, dx, s);
            rows.add(new CheckRow(c.name, "dweight repeated", dim, CheckRow.relL2(
                    ln.parameters().get(0).grad().toFloats(), HostTensor.ofFloats(DType.FP32, new int[] {dim}, dgamma)
                            .toDoubles()), 0));
            rows.add(new CheckRow(c.name, "dbias repeated", dim, CheckRow.relL2(
                    ln.parameters().get(1).grad().toFloats(), HostTensor.ofFloats(DType.FP32, new int[] {dim}, dbeta)
                            .toDoubles()), 0));
        }
    }

    void softmax(int n, int dim) {
        try (Case c = new Case("softmax_" + n + "x" + dim, "softmax")) {
            Softmax sm = new Softmax(ctx);
            Tensor x = c.input("x", n, dim);
            Tensor y = c.output(n, dim);
            Tensor dy = c.input("dy", n, dim);
            Tensor dx = c.output(n, dim);
            sm.forward(x, y, s);
            sm.backward(y, dy, dx, s);
            double[] yRef = RefSoftmax.forward(c.values("x"), n, dim);
            c.compare("y", c.result("out.y", y), yRef);
            c.compare("dx", c.result("grad.x", dx), RefSoftmax.backward(yRef, c.values("dy"), n, dim));
        }
    }

    void bce(int n, int cols) {
        try (Case c = new Case("bce_with_logits_" + n + "x" + cols, "bce_with_logits")) {
            BceWithLogits loss = new BceWithLogits(ctx);
            Tensor x = c.input("x", n, cols);
            Tensor y = c.upload("targets", c.uniforms(n * cols, 0, 1), n, cols);
            Tensor w = c.upload("weight", c.uniforms(cols, 0.1, 2), cols);
            Tensor pw = c.upload("pos_weight", c.uniforms(cols, 0.5, 3), cols);
            Tensor l = c.output(1);
            Tensor dx = c.output(n, cols);
            float dloss = 1.5f;
            c.meta.put("dloss", dloss);
            loss.forward(x, y, w, pw, l, s);
            loss.backward(x, y, w, pw, dloss, dx, s);
            double[] xd = c.values("x");
            double[] yd = c.values("targets");
            double[] wd = c.values("weight");
            double[] pwd = c.values("pos_weight");
            c.compare("loss", c.result("out.loss", l), new double[] {RefLoss.bceWithLogits(xd, yd, wd, pwd, n, cols)});
            c.compare("dx", c.result("grad.x", dx), RefLoss.bceWithLogitsBackward(xd, yd, wd, pwd, n, cols, dloss));
        }
    }

    void elementwise(int n) {
        try (Case c = new Case("elementwise_" + n, "elementwise")) {
            Elementwise ew = new Elementwise(ctx);
            Tensor x = c.input("x", n);
            Tensor b = c.input("b", n);
            Tensor dy = c.input("dy", n);
            Tensor y = c.output(n);
            Tensor dx = c.output(n);
            ew.gelu(x, y, s);
            ew.geluBackward(x, dy, dx, s);
            double[] xd = c.values("x");
            double[] dyd = c.values("dy");
            c.compare("gelu y", c.result("out.gelu", y), RefElementwise.gelu(xd));
            c.compare("gelu dx", c.result("grad.gelu", dx), RefElementwise.geluBackward(xd, dyd));
            ew.residualAdd(x, b, y, s);
            c.compare("residual y", c.result("out.add", y), RefElementwise.add(xd, c.values("b")));
            dx.copyFrom(c.floats("b"));
            ew.accumulate(dx, dy, s);
            c.compare("accumulate", c.result("out.accumulate", dx), RefElementwise.add(c.values("b"), dyd));
            float p = 0.3f;
            long seed = rnd.nextLong();
            long offset = rnd.nextInt(1 << 20);
            c.meta.put("p", p);
            ew.dropout(x, y, p, seed, offset, s);
            ew.dropout(dy, dx, p, seed, offset, s);
            double[] mask = RefElementwise.dropoutMask(n, p, seed, offset);
            // the same Philox bits give the same mask; what differs is the fp32 rounding of x·scale (≤ 2^-24)
            double scale = (float) (1 / (1 - p));
            for (int i = 0; i < n; i++) {
                mask[i] = mask[i] == 0 ? 0 : scale;
            }
            c.compareMask("dropout y", c.result("out.dropout", y), RefElementwise.times(xd, mask));
            c.compareMask("dropout dx", c.result("grad.dropout", dx), RefElementwise.times(dyd, mask));
        }
    }

    void relu(int n) {
        try (Case c = new Case("relu_" + n, "relu")) {
            Elementwise ew = new Elementwise(ctx);
            Tensor x = c.input("x", n);
            Tensor dy = c.input("dy", n);
            Tensor y = c.output(n);
            Tensor dx = c.output(n);
            ew.relu(x, y, s);
            ew.reluBackward(x, dy, dx, s);
            double[] xd = c.values("x");
            c.compare("y", c.result("out.y", y), RefElementwise.relu(xd));
            c.compare("dx", c.result("grad.x", dx), RefElementwise.reluBackward(xd, c.values("dy")));
        }
    }

    /** With {@code ignore}, about a quarter of the rows carry ignore_index -100 (the first one always, n > 1). */
    void crossEntropy(int n, int classes, boolean ignore) {
        int ignoreIndex = -100;
        try (Case c = new Case("cross_entropy_" + n + "x" + classes + (ignore ? "_ignore" : ""), "cross_entropy")) {
            c.meta.put("ignore_index", ignoreIndex);
            Tensor x = c.input("x", n, classes);
            int[] target = new int[n];
            for (int r = 0; r < n; r++) {
                target[r] = ignore && n > 1 && (r == 0 || rnd.nextInt(4) == 0) ? ignoreIndex : rnd.nextInt(classes);
            }
            Tensor t = c.own(Tensor.empty(ctx.device(), "check", "target", DType.I32, n));
            t.copyFrom(target);
            c.tensors.put("target", HostTensor.ofInts(new int[] {n}, target));
            Tensor lse = c.output(n);
            Tensor rowLoss = c.output(n);
            Tensor stats = c.output(2);
            Tensor dx = c.output(n, classes);
            CrossEntropy ce = new CrossEntropy(ctx);
            float dloss = 1.5f;
            c.meta.put("dloss", dloss);
            ce.forward(x, t, ignoreIndex, lse, rowLoss, stats, s);
            ce.backward(x, t, ignoreIndex, lse, stats, dloss, dx, s);
            double[] xd = c.values("x");
            float[] st = c.result("out.stats", stats);
            c.compare("loss", new float[] {st[0]}, new double[] {RefLoss.crossEntropy(xd, target, n, classes,
                    ignoreIndex)});
            c.compare("dx", c.result("grad.x", dx), RefLoss.crossEntropyBackward(xd, target, n, classes, ignoreIndex,
                    dloss));
        }
    }

    void topKGating(int n, int experts, int k) {
        try (Case c = new Case("topk_gating_" + n + "x" + experts + "_k" + k, "topk_gating")) {
            c.meta.put("k", k);
            Tensor x = c.input("x", n, experts);
            Tensor dg = c.input("dgates", n, k);
            Tensor chosen = c.own(Tensor.empty(ctx.device(), "check", "experts", DType.I32, n, k));
            int[] poison = new int[n * k];
            java.util.Arrays.fill(poison, -7);
            chosen.copyFrom(poison);
            Tensor gates = c.output(n, k);
            Tensor dx = c.output(n, experts);
            TopKGating gating = new TopKGating(ctx);
            gating.forward(x, chosen, gates, s);
            gating.backward(x, chosen, gates, dg, dx, s);
            RefGating.Routing ref = RefGating.topK(c.values("x"), n, experts, k);
            HostTensor ours = chosen.toHost();
            c.tensors.put("out.experts", ours);
            int[] oursIdx = ours.toInts();
            float[] oursF = new float[oursIdx.length];
            double[] refF = new double[oursIdx.length];
            for (int i = 0; i < oursIdx.length; i++) {
                oursF[i] = oursIdx[i];
                refF[i] = ref.experts()[i];
            }
            c.compareMask("experts", oursF, refF);
            c.compare("gates", c.result("out.gates", gates), ref.gates());
            c.compare("dx", c.result("grad.x", dx), RefGating.topKBackward(ref, c.values("dgates"), n, experts, k));
        }
    }

    void concat(int rows, int w0, int w1, int w2) {
        try (Case c = new Case("concat_" + rows + "x" + w0 + "+" + w1 + "+" + w2, "concat")) {
            int[] widths = {w0, w1, w2};
            int total = w0 + w1 + w2;
            List<Tensor> ins = new ArrayList<>();
            List<Tensor> dins = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ins.add(c.input("x" + i, rows, widths[i]));
                dins.add(c.output(rows, widths[i]));
            }
            Tensor out = c.output(rows, total);
            Tensor dout = c.input("dy", rows, total);
            Concat cat = new Concat(ctx);
            cat.forward(ins, out, s);
            cat.backward(dout, dins, s);
            double[] ref = new double[rows * total];
            double[] dy = c.values("dy");
            int offset = 0;
            for (int i = 0; i < 3; i++) {
                double[] xi = c.values("x" + i);
                double[] dref = new double[rows * widths[i]];
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < widths[i]; j++) {
                        ref[r * total + offset + j] = xi[r * widths[i] + j];
                        dref[r * widths[i] + j] = dy[r * total + offset + j];
                    }
                }
                c.compare("dx" + i, c.result("grad.x" + i, dins.get(i)), dref);
                offset += widths[i];
            }
            c.compare("y", c.result("out.y", out), ref);
        }
    }

    /**
     * Forward (also with the fused ReLU) and backward; {@code precision} null for fp32, else "tf32", "bf16" or
     * "fp16" (the tensor-core GEMMs, against the wider bars).
     */
    void conv2d(RefConv.Shape sh, String precision) {
        try (Case c = new Case("conv2d" + (precision == null ? "" : "_" + precision) + "_" + sh.n() + "x" + sh.ci()
                + "x" + sh.h() + "x" + sh.w() + "_co" + sh.co() + "_k" + sh.kh() + "x" + sh.kw() + "_s" + sh.stride()
                + "_p" + sh.pad(), "conv2d")) {
            c.meta.put("stride", sh.stride()).put("padding", sh.pad());
            if (precision != null) {
                c.tolerance = precision.equals("tf32") ? TF32_TOLERANCE : BF16_TOLERANCE;
                c.meta.put("tolerance", c.tolerance);
            }
            ctx.convTf32("tf32".equals(precision));
            ctx.autocast(precision == null || precision.equals("tf32") ? null : precision.equals("bf16") ? DType.BF16 : DType.FP16);
            Conv2d conv = c.own(new Conv2d(ctx, "conv", sh.ci(), sh.co(), sh.kh(), sh.kw(), sh.stride(), sh.pad(), true,
                    rnd.nextLong()));
            Tensor x = c.input("x", sh.n(), sh.ci(), sh.h(), sh.w());
            Tensor y = c.output(sh.n(), sh.co(), sh.oh(), sh.ow());
            Tensor yRelu = c.output(sh.n(), sh.co(), sh.oh(), sh.ow());
            Tensor yNoBias = c.output(sh.n(), sh.co(), sh.oh(), sh.ow());
            Tensor dy = c.input("dy", sh.n(), sh.co(), sh.oh(), sh.ow());
            Tensor dx = c.output(sh.n(), sh.ci(), sh.h(), sh.w());
            conv.zeroGrad(s);
            conv.forward(x, y, s);
            conv.forwardRelu(x, yRelu, s);
            conv.forwardWithoutBias(x, yNoBias, s);
            conv.backward(x, dy, dx, s);
            ctx.convTf32(false);
            ctx.autocast(null);
            c.record("param.weight", conv.parameters().get(0).value());
            c.record("param.bias", conv.parameters().get(1).value());
            double[] xd = c.values("x");
            double[] w = c.values("param.weight");
            RefConv.ConvGrads g = RefConv.conv2dBackward(xd, w, c.values("dy"), sh);
            double[] ref = RefConv.conv2d(xd, w, c.values("param.bias"), sh);
            c.compare("y", c.result("out.y", y), ref);
            c.compare("y relu", c.result("out.y_relu", yRelu), RefElementwise.relu(ref));
            c.compare("y without bias", c.result("out.y_no_bias", yNoBias),
                    RefConv.conv2d(xd, w, new double[sh.co()], sh));
            c.compare("dx", c.result("grad.x", dx), g.dx());
            c.compare("dweight", c.result("grad.weight", conv.parameters().get(0).grad()), g.dw());
            c.compare("dbias", c.result("grad.bias", conv.parameters().get(1).grad()), g.db());
        }
    }

    void maxPool(int n, int ch, int h, int w, int k, int stride, int pad) {
        try (Case c = new Case("max_pool_" + n + "x" + ch + "x" + h + "x" + w + "_k" + k + "_s" + stride + "_p" + pad,
                "max_pool")) {
            c.meta.put("k", k).put("stride", stride).put("padding", pad);
            MaxPool2d pool = new MaxPool2d(ctx, k, stride, pad);
            int[] os = pool.outputShape(new int[] {n, ch, h, w});
            Tensor x = c.input("x", n, ch, h, w);
            Tensor y = c.output(os);
            Tensor arg = c.own(Tensor.empty(ctx.device(), "check", "argmax", DType.I32, os));
            Tensor bias = c.input("bias", ch);
            Tensor yBiasRelu = c.output(os);
            Tensor dy = c.input("dy", os);
            Tensor dx = c.output(n, ch, h, w);
            pool.forward(x, y, arg, s);
            pool.forwardBiasRelu(x, bias, yBiasRelu, s);
            pool.backward(x, arg, dy, dx, s);
            double[] xd = c.values("x");
            int[] refArg = new int[(int) dev.aorta.model.Shapes.numel(os)];
            double[] ref = RefConv.maxPool(xd, n * ch, h, w, k, stride, pad, refArg);
            c.compare("y", c.result("out.y", y), ref);
            c.compare("y of relu(x + bias)", c.result("out.y_bias_relu", yBiasRelu), RefConv.maxPool(
                    biasRelu(xd, c.values("bias"), h * w), n * ch, h, w, k, stride, pad, new int[refArg.length]));
            c.compare("dx", c.result("grad.x", dx), RefConv.maxPoolBackward(refArg, c.values("dy"), xd.length));
        }
    }

    /** max(0, x + bias[channel]) over NCHW values with planes of {@code plane} elements. */
    private static double[] biasRelu(double[] x, double[] bias, int plane) {
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(0, x[i] + bias[i / plane % bias.length]);
        }
        return out;
    }

    void globalAvgPool(int n, int ch, int h, int w) {
        try (Case c = new Case("global_avg_pool_" + n + "x" + ch + "x" + h + "x" + w, "global_avg_pool")) {
            GlobalAvgPool pool = new GlobalAvgPool(ctx);
            Tensor x = c.input("x", n, ch, h, w);
            Tensor y = c.output(n, ch);
            Tensor bias = c.input("bias", ch);
            Tensor yBiasRelu = c.output(n, ch);
            Tensor dy = c.input("dy", n, ch);
            Tensor dx = c.output(n, ch, h, w);
            pool.forward(x, y, s);
            pool.forwardBiasRelu(x, bias, yBiasRelu, s);
            pool.backward(x, dy, dx, s);
            c.compare("y", c.result("out.y", y), RefConv.globalAvgPool(c.values("x"), n * ch, h * w));
            c.compare("y of relu(x + bias)", c.result("out.y_bias_relu", yBiasRelu),
                    RefConv.globalAvgPool(biasRelu(c.values("x"), c.values("bias"), h * w), n * ch, h * w));
            c.compare("dx", c.result("grad.x", dx), RefConv.globalAvgPoolBackward(c.values("dy"), n * ch, h * w));
        }
    }

    void mlpBlock(int b, int t, int dim, int hidden) {
        try (Case c = new Case("mlp_block_" + b + "x" + t + "x" + dim + "_h" + hidden, "mlp_block")) {
            MlpBlock mlp = c.own(new MlpBlock(ctx, "", dim, hidden, rnd.nextLong()));
            for (Parameter p : mlp.parameters()) {
                c.record("param." + p.name(), p.value());
            }
            Tensor x = c.input("x", b, t, dim);
            Tensor dy = c.input("dy", b, t, dim);
            Tensor y = c.output(b, t, dim);
            Tensor dx = c.output(b, t, dim);
            try (MlpBlock.Activations a = mlp.activations(b, t)) {
                mlp.zeroGrad(s);
                mlp.forward(x, y, a, s);
                mlp.backward(x, dy, dx, a, s);
            }
            int rows = b * t;
            double[] xd = c.values("x");
            double[] w0 = c.values("param.0.weight");
            double[] w2 = c.values("param.2.weight");
            double[] pre = RefLinear.forward(xd, w0, c.values("param.0.bias"), rows, dim, hidden);
            double[] h = RefElementwise.gelu(pre);
            RefLinear.Grads g2 = RefLinear.backward(h, w2, c.values("dy"), rows, hidden, dim);
            RefLinear.Grads g0 = RefLinear.backward(xd, w0, RefElementwise.geluBackward(pre, g2.dx()), rows, dim,
                    hidden);
            c.compare("y", c.result("out.y", y), RefLinear.forward(h, w2, c.values("param.2.bias"), rows, hidden, dim));
            c.compare("dx", c.result("grad.x", dx), g0.dx());
            List<Parameter> ps = mlp.parameters();
            c.compare("d0.weight", c.result("grad.0.weight", ps.get(0).grad()), g0.dw());
            c.compare("d0.bias", c.result("grad.0.bias", ps.get(1).grad()), g0.db());
            c.compare("d2.weight", c.result("grad.2.weight", ps.get(2).grad()), g2.dw());
            c.compare("d2.bias", c.result("grad.2.bias", ps.get(3).grad()), g2.db());
        }
    }

    /** Feeds a causal sequence in {@code pieces} through the KV cache; the outputs must be the whole sequence's. */
    void cachedAttention(int b, int e, int heads, int[] pieces) {
        int total = java.util.Arrays.stream(pieces).sum();
        try (Case c = new Case("cached_attention_" + b + "x" + total + "x" + e + "_h" + heads + "_pieces"
                + pieces.length, "cached_attention")) {
            c.meta.put("heads", heads);
            c.tolerance = ATTENTION_TOLERANCE;
            CachedSelfAttention block = c.own(new CachedSelfAttention(ctx, "", e, heads, rnd.nextLong()));
            // biases away from their zero start, so that their effect is tested too
            for (Parameter p : block.parameters()) {
                if (p.value().rank() == 1) {
                    float[] r = c.randoms(p.value().dim(0));
                    for (int i = 0; i < r.length; i++) {
                        r[i] *= 0.2f;
                    }
                    p.load(HostTensor.ofFloats(DType.FP32, p.value().shape(), r));
                }
                c.record("param." + p.name(), p.value());
            }
            float[] x = c.randoms(b * total * e);
            c.tensors.put("x", HostTensor.ofFloats(DType.FP32, new int[] {b, total, e}, x));
            float[] y = new float[x.length];
            try (CachedSelfAttention.KvCache cache = block.cache(b, total)) {
                int pos = 0;
                for (int t : pieces) {
                    float[] xp = new float[b * t * e];
                    for (int bb = 0; bb < b; bb++) {
                        System.arraycopy(x, (bb * total + pos) * e, xp, bb * t * e, t * e);
                    }
                    Tensor xt = c.own(Tensor.empty(ctx.device(), "check", "x piece", DType.FP32, b, t, e));
                    xt.copyFrom(xp);
                    Tensor yt = c.output(b, t, e);
                    block.forward(xt, yt, cache, s);
                    float[] yp = yt.toFloats();
                    for (int bb = 0; bb < b; bb++) {
                        System.arraycopy(yp, bb * t * e, y, (bb * total + pos) * e, t * e);
                    }
                    pos += t;
                }
            }
            c.tensors.put("out.y", HostTensor.ofFloats(DType.FP32, new int[] {b, total, e}, y));
            Map<String, double[]> p64 = new LinkedHashMap<>();
            for (Parameter p : block.parameters()) {
                p64.put(p.name(), c.values("param." + p.name()));
            }
            c.compare("y", y, RefSelfAttention.forward(p64, c.values("x"), b, total, e, heads, true));
        }
    }

    void embedding(int bags, int len, int vocab, int dim) {
        try (Case c = new Case("embedding_mean_" + bags + "x" + len + "_" + vocab + "x" + dim, "embedding_mean")) {
            EmbeddingMeanPool emb = c.own(new EmbeddingMeanPool(ctx, "emb", vocab, dim, rnd.nextLong()));
            int[] ids = new int[bags * len];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = rnd.nextInt(vocab);
            }
            Tensor idT = c.own(Tensor.empty(ctx.device(), "check", "ids", DType.I32, bags, len));
            idT.copyFrom(ids);
            c.tensors.put("ids", HostTensor.ofInts(new int[] {bags, len}, ids));
            Tensor o = c.output(bags, dim);
            Tensor dout = c.input("dy", bags, dim);
            emb.zeroGrad(s);
            emb.forward(idT, o, s);
            emb.backward(idT, dout, s);
            c.record("param.weight", emb.parameters().getFirst().value());
            double[] table = c.values("param.weight");
            c.compare("y", c.result("out.y", o), RefEmbedding.forward(table, ids, bags, len, dim));
            c.compare("dweight", c.result("grad.weight", emb.parameters().getFirst().grad()),
                    RefEmbedding.backward(c.values("dy"), ids, bags, len, dim, vocab));
        }
    }

    void attention(int batch, int heads, int t, int d, boolean causal) {
        try (Case c = new Case("attention" + (causal ? "_causal_" : "_") + batch + "x" + heads + "x" + t + "x" + d,
                "attention")) {
            c.meta.put("causal", causal);
            c.tolerance = ATTENTION_TOLERANCE;
            Tensor q = c.input("q", batch, heads, t, d);
            Tensor k = c.input("k", batch, heads, t, d);
            Tensor v = c.input("v", batch, heads, t, d);
            Tensor dout = c.input("dy", batch, heads, t, d);
            int n = batch * heads;
            double[] qd = c.values("q");
            double[] kd = c.values("k");
            double[] vd = c.values("v");
            RefAttention.Grads g = RefAttention.backward(qd, kd, vd, c.values("dy"), n, t, d, causal);
            double[] y = RefAttention.forward(qd, kd, vd, n, t, d, causal);
            // both fp32 paths on the same inputs: the scores (GEMM) path where the scratch allows it, and the
            // flash kernels (a scratch budget of 0), which the default budget keeps for longer sequences only
            for (String path : new String[] {"", "_flash"}) {
                Attention att = c.own(path.isEmpty() ? new Attention(ctx) : new Attention(ctx, 0));
                Tensor o = c.output(batch, heads, t, d);
                Tensor lse = c.output(batch, heads, t);
                Tensor delta = c.output(batch, heads, t);
                Tensor dq = c.output(batch, heads, t, d);
                Tensor dk = c.output(batch, heads, t, d);
                Tensor dv = c.output(batch, heads, t, d);
                att.forward(q, k, v, o, lse, causal, s);
                att.backward(q, k, v, o, lse, dout, delta, dq, dk, dv, causal, s);
                c.compare("y" + path, c.result("out.y" + path, o), y);
                c.compare("dq" + path, c.result("grad.q" + path, dq), g.dq());
                c.compare("dk" + path, c.result("grad.k" + path, dk), g.dk());
                c.compare("dv" + path, c.result("grad.v" + path, dv), g.dv());
            }
        }
    }

    /**
     * Attention on 16-bit q, k, v (what the encoder layer hands it under autocast), the bf16 bar. The references
     * get the rounded inputs, so what they measure is the kernels' own error (16-bit P and dO, fp32 sums).
     */
    void attention16(int batch, int heads, int t, int d, boolean causal, DType dtype) {
        try (Case c = new Case("attention16" + (causal ? "_causal_" : "_") + batch + "x" + heads + "x" + t + "x" + d
                + "_" + dtype, "attention")) {
            c.meta.put("causal", causal);
            c.tolerance = BF16_TOLERANCE;
            c.meta.put("tolerance", BF16_TOLERANCE);
            Attention att = c.own(new Attention(ctx));
            Tensor q = c.input16("q", dtype, batch, heads, t, d);
            Tensor k = c.input16("k", dtype, batch, heads, t, d);
            Tensor v = c.input16("v", dtype, batch, heads, t, d);
            Tensor dout = c.input("dy", batch, heads, t, d);
            Tensor o = c.output(batch, heads, t, d);
            Tensor lse = c.output(batch, heads, t);
            Tensor delta = c.output(batch, heads, t);
            Tensor dq = c.output(batch, heads, t, d);
            Tensor dk = c.output(batch, heads, t, d);
            Tensor dv = c.output(batch, heads, t, d);
            att.forward(q, k, v, o, lse, causal, s);
            att.backward(q, k, v, o, lse, dout, delta, dq, dk, dv, causal, s);
            int n = batch * heads;
            double[] qd = c.values("q");
            double[] kd = c.values("k");
            double[] vd = c.values("v");
            RefAttention.Grads g = RefAttention.backward(qd, kd, vd, c.values("dy"), n, t, d, causal);
            c.compare("y", c.result("out.y", o), RefAttention.forward(qd, kd, vd, n, t, d, causal));
            c.compare("dq", c.result("grad.q", dq), g.dq());
            c.compare("dk", c.result("grad.k", dk), g.dk());
            c.compare("dv", c.result("grad.v", dv), g.dv());
        }
    }

    void encoderLayer(int batch, int t, int e, int heads, int ff) {
        encoderLayer(batch, t, e, heads, ff, null);
    }

    /**
     * With {@code autocast} bf16 or fp16: the layer as the ranking model runs it under autocast (16-bit GEMM
     * operands, the head-layout pass writing 16-bit q, k, v for the tensor-core attention), the bf16 bar.
     */
    void encoderLayer(int batch, int t, int e, int heads, int ff, DType autocast) {
        try (Case c = new Case("encoder_layer_" + batch + "x" + t + "x" + e + "_h" + heads + "_f" + ff
                + (autocast == null ? "" : "_" + autocast), "encoder_layer")) {
            c.meta.put("heads", heads).put("ff", ff).put("dropout", 0.0);
            c.tolerance = ATTENTION_TOLERANCE;
            if (autocast != null) {
                c.tolerance = BF16_TOLERANCE;
                c.meta.put("tolerance", BF16_TOLERANCE);
            }
            ctx.autocast(autocast);
            TransformerEncoderLayer layer = c.own(new TransformerEncoderLayer(ctx, "", e, heads, ff, 0f,
                    rnd.nextLong()));
            // biases and norm parameters away from their 0/1 starts, so that their effect is tested too
            for (Parameter p : layer.parameters()) {
                int[] shape = p.value().shape();
                if (shape.length == 1) {
                    float[] r = c.randoms(shape[0]);
                    boolean gamma = p.name().startsWith("norm") && p.name().endsWith("weight");
                    for (int i = 0; i < r.length; i++) {
                        r[i] = (gamma ? 1 : 0) + 0.2f * r[i];
                    }
                    p.load(HostTensor.ofFloats(DType.FP32, shape, r));
                }
                c.record("param." + p.name(), p.value());
            }
            Tensor x = c.input("x", batch, t, e);
            Tensor dy = c.input("dy", batch, t, e);
            Tensor y = c.output(batch, t, e);
            Tensor dx = c.output(batch, t, e);
            try (TransformerEncoderLayer.Activations a = layer.activations(batch, t)) {
                layer.zeroGrad(s);
                layer.forward(x, y, a, 1, 0, s);
                layer.backward(x, dy, dx, a, 1, 0, s);
                Map<String, double[]> p64 = new LinkedHashMap<>();
                for (Parameter p : layer.parameters()) {
                    p64.put(p.name(), c.values("param." + p.name()));
                }
                double[] xd = c.values("x");
                Map<String, double[]> g = RefEncoderLayer.backward(p64, xd, c.values("dy"), batch, t, e, heads, ff);
                c.compare("y", c.result("out.y", y), RefEncoderLayer.forward(p64, xd, batch, t, e, heads, ff));
                c.compare("dx", c.result("grad.x", dx), g.get("x"));
                for (Parameter p : layer.parameters()) {
                    c.compare("d" + p.name(), c.result("grad." + p.name(), p.grad()), g.get(p.name()));
                }
            }
        } finally {
            ctx.autocast(null);
        }
    }

    /**
     * Autocast linear, one AdamW step with a large learning rate, then a second forward pass: the weights' 16-bit
     * copy that AdamW rewrites must be the new weights rounded (a stale copy would give the first step's output,
     * far outside the bf16 bar), and the copy must equal the host's rounding of the new fp32 values exactly.
     */
    void linearAfterStep(int n, int in, int outF, DType autocast) {
        try (Case c = new Case("linear_after_step_" + autocast + "_" + n + "x" + in + "x" + outF, "linear_after_step")) {
            c.tolerance = BF16_TOLERANCE;
            c.meta.put("tolerance", BF16_TOLERANCE);
            ctx.autocast(autocast);
            Linear lin = c.own(new Linear(ctx, "lin", in, outF, true, rnd.nextLong()));
            Tensor x = c.input("x", n, in);
            Tensor y = c.output(n, outF);
            Tensor dy = c.input("dy", n, outF);
            lin.zeroGrad(s);
            lin.forward(x, y, s);
            lin.backward(x, dy, null, s);
            try (AdamW opt = new AdamW(ctx, lin.parameters(), 0.9, 0.999, 1e-8, 0.0, s)) {
                opt.step(0.5, 0, s); // Adam's first step moves every weight by about lr: far from the old copy
            }
            y.fill(Float.NaN, s);
            lin.forward(x, y, s);
            c.record("param.weight", lin.weight().value());
            c.record("param.bias", lin.bias().value());
            c.compare("y after step", c.result("out.y", y), RefLinear.forward(c.values("x"),
                    c.values("param.weight"), c.values("param.bias"), n, in, outF));
            float[] w = c.floats("param.weight");
            double[] rounded = HostTensor.ofFloats(autocast, lin.weight().value().shape(), w).toDoubles();
            // exact: the same round-to-nearest-even of the same fp32 values (absolute error where 0)
            rows.add(new CheckRow(c.name, "16-bit weight copy", w.length, CheckRow.relL2(
                    lin.weight().lowCopy(ctx, autocast, s).toFloats(), rounded), 0));
        } finally {
            ctx.autocast(null);
        }
    }

    void adamw(int[][] shapes, int steps) {
        adamw(shapes, steps, 1);
    }

    /**
     * With {@code gradScale} != 1 the gradients on the device carry that loss scale (fp16 training) and the
     * step must unscale them; the reference steps with the unscaled gradients.
     */
    void adamw(int[][] shapes, int steps, float gradScale) {
        try (Case c = new Case("adamw_" + shapes.length + "_tensors_" + steps + "_steps"
                + (gradScale == 1 ? "" : "_scaled"), "adamw")) {
            c.meta.put("grad_scale", gradScale);
            double b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1, maxNorm = 0.5;
            LrSchedule sched = new LrSchedule(1e-2, 1e-3, 2, steps);
            c.meta.put("beta1", b1).put("beta2", b2).put("eps", eps).put("weight_decay", wd).put("max_norm", maxNorm)
                    .put("steps", steps);
            ArrayNode lrs = c.meta.putArray("lr");
            List<Parameter> params = new ArrayList<>();
            List<double[]> p64 = new ArrayList<>();
            List<double[]> g64 = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                Tensor p = c.input("param.p" + i, shapes[i]);
                float[] gv = c.randoms((int) dev.aorta.model.Shapes.numel(shapes[i]));
                double[] gd = new double[gv.length];
                for (int k = 0; k < gv.length; k++) {
                    gd[k] = gv[k];
                    gv[k] *= gradScale; // a power of two: exact
                }
                Tensor g = c.upload("grad_in.p" + i, gv, shapes[i]);
                params.add(new Parameter("p" + i, p, g));
                p64.add(c.values("param.p" + i));
                g64.add(gd);
            }
            List<double[]> m64 = new ArrayList<>();
            List<double[]> v64 = new ArrayList<>();
            for (double[] p : p64) {
                m64.add(new double[p.length]);
                v64.add(new double[p.length]);
            }
            try (AdamW opt = new AdamW(ctx, params, b1, b2, eps, wd, s)) {
                for (int t = 0; t < steps; t++) {
                    double lr = sched.lr(t);
                    lrs.add(lr);
                    opt.step(lr, maxNorm, gradScale, s);
                    double coef = RefOptim.clipCoefficient(RefOptim.globalNorm(g64), maxNorm);
                    for (int i = 0; i < p64.size(); i++) {
                        double[] g = g64.get(i).clone();
                        for (int k = 0; k < g.length; k++) {
                            g[k] *= coef;
                        }
                        RefOptim.adamw(p64.get(i), g, m64.get(i), v64.get(i), t + 1, lr, b1, b2, eps, wd);
                    }
                }
                c.compare("grad norm", c.result("out.grad_norm", opt.gradNorm()),
                        new double[] {gradScale * RefOptim.globalNorm(g64)});
                for (int i = 0; i < params.size(); i++) {
                    c.compare("p" + i, c.result("out.p" + i, params.get(i).value()), p64.get(i));
                }
                opt.zeroGrad(s);
                for (int i = 0; i < params.size(); i++) {
                    // exactly zero: the absolute error (the reference norm is 0)
                    c.compare("zeroed grad p" + i, params.get(i).grad().toFloats(), new double[g64.get(i).length]);
                }
            }
        }
    }

    /** One case: its tensors (kept for the file), device tensors (closed at the end) and manifest entry. */
    private final class Case implements AutoCloseable {
        final String name;
        final Map<String, HostTensor> tensors = new LinkedHashMap<>();
        final List<AutoCloseable> owned = new ArrayList<>();
        final ObjectNode meta;
        double tolerance = FP32_TOLERANCE;

        Case(String name, String op) {
            this.name = name;
            this.meta = manifest.addObject();
            meta.put("name", name).put("op", op).put("file", name + ".safetensors");
        }

        <T extends AutoCloseable> T own(T t) {
            owned.add(t);
            return t;
        }

        float[] randoms(int n) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) gaussian();
            }
            return v;
        }

        float[] uniforms(int n, double lo, double hi) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) rnd.nextDouble(lo, hi);
            }
            return v;
        }

        private double gaussian() {
            double u1 = 1 - rnd.nextDouble();
            double u2 = rnd.nextDouble();
            return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        }

        /** A random N(0, 1) fp32 input, recorded under {@code key}. */
        Tensor input(String key, int... shape) {
            return upload(key, randoms((int) dev.aorta.model.Shapes.numel(shape)), shape);
        }

        /**
         * Random values rounded to {@code dtype} (bf16 / fp16) in a tensor of that dtype; recorded as fp32 (every
         * 16-bit value is one), so that both references read exactly the op's inputs.
         */
        Tensor input16(String key, DType dtype, int... shape) {
            HostTensor low = HostTensor.ofFloats(dtype, shape, randoms((int) dev.aorta.model.Shapes.numel(shape)));
            Tensor t = own(Tensor.empty(ctx.device(), "check", key, dtype, shape));
            t.copyFrom(low);
            tensors.put(key, HostTensor.ofFloats(DType.FP32, shape, low.toFloats()));
            return t;
        }

        Tensor upload(String key, float[] values, int... shape) {
            Tensor t = own(Tensor.empty(ctx.device(), "check", key, DType.FP32, shape));
            HostTensor h = HostTensor.ofFloats(DType.FP32, shape, values);
            t.copyFrom(h);
            tensors.put(key, h);
            return t;
        }

        /** An output, poisoned with NaN so that an element the op fails to write shows up in the comparison. */
        Tensor output(int... shape) {
            Tensor t = own(Tensor.empty(ctx.device(), "check", "output", DType.FP32, shape));
            t.fill(Float.NaN, s);
            return t;
        }

        void record(String key, Tensor t) {
            tensors.put(key, t.toHost());
        }

        float[] result(String key, Tensor t) {
            HostTensor h = t.toHost();
            tensors.put(key, h);
            return h.toFloats();
        }

        double[] values(String key) {
            return tensors.get(key).toDoubles();
        }

        float[] floats(String key) {
            return tensors.get(key).toFloats();
        }

        void compare(String tensor, float[] ours, double[] reference) {
            rows.add(new CheckRow(name, tensor, ours.length, CheckRow.relL2(ours, reference), tolerance));
        }

        /** A mask that differs in one element is off by far more than one fp32 rounding (6e-8). */
        void compareMask(String tensor, float[] ours, double[] reference) {
            rows.add(new CheckRow(name, tensor, ours.length, CheckRow.relL2(ours, reference), 1e-7));
        }

        @Override
        public void close() {
            if (out != null) {
                ParameterFile.write(out.resolve(name + ".safetensors"), tensors);
            }
            for (AutoCloseable a : owned.reversed()) {
                try {
                    a.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + a + " of case " + name, e);
                }
            }
        }
    }
}
