package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.AddressCopies;
import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Conv2d;
import dev.aorta.model.ops.GlobalAvgPool;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.MaxPool2d;
import dev.aorta.model.reference.RefConv;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AORTA's async_dataload: {@code num_prefetch} batches of images per iteration, each copied from pinned host memory
 * on a {@code transfer} stream, normalised with ImageNet's mean and std and flipped (every odd image) on a
 * {@code preprocess} stream, and classified on a {@code compute} stream by SimpleConvNet (three 3×3 convolutions
 * 3→64→128→256, each with ReLU and 2×2 max-pool, global average pool, Linear 256→1000), AORTA's model: fp32 NCHW
 * tensors (not channels_last), 32 images of 224×224. The convolutions are the model module's im2col + cuBLAS GEMMs;
 * {@code precision=tf32} (the default) runs them on TF32 tensor cores as PyTorch does AORTA's (cuDNN's fp32
 * convolutions may use TF32 unless {@code torch.backends.cudnn.allow_tf32} is turned off, and it is on by default),
 * {@code fp32} without, {@code bf16} and {@code fp16} under autocast (the classifier's Linear too). Streams by thirds;
 * batch j uses stream j mod k of each role, and each stage waits only for the stages of its own batch, so batches
 * pipeline across the roles.
 */
public final class AsyncDataload extends ModelWorkload {
    public static final String NAME = "async_dataload";
    private static final int[] CHANNELS = {3, 64, 128, 256};
    private static final int CLASSES = 1000;
    private static final int BLOCK = 256;
    /** TF32 rounds every convolution operand to 10 mantissa bits: about 1e-3 relative L2 through three layers. */
    private static final double TF32_TOLERANCE = 5e-3;
    /** bf16 operands (8 mantissa bits): a few 1e-3 through three layers and the classifier. */
    private static final double LOW_TOLERANCE = 2e-2;
    private static final double[] MEAN = {0.485, 0.456, 0.406};
    private static final double[] STD = {0.229, 0.224, 0.225};

    /** SimpleConvNet's layers on one compute stream's handle (same names and seeds on every stream). */
    private record ConvNet(Conv2d[] convs, Linear fc) {
    }

    private final Map<Integer, ConvNet> nets = new HashMap<>();
    private final List<float[]> hostBatches = new ArrayList<>();
    private Tensor firstLogits;
    private ConvNet firstNet;
    private int batch;
    private int size;
    private int prefetch;
    private String precision;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Pinned host batches copied, normalised and flipped, then classified by a small CNN, each stage on its "
                + "own stream role, batches pipelined";
    }

    @Override
    public Priority priority() {
        return Priority.P3;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(4, 12);
    }

    @Override
    public int recommendedStreams() {
        return 6;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.MEDIUM;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("batch_size", "32", "images per batch"),
                WorkloadParameter.positive("image_size", "224", "height and width"),
                WorkloadParameter.growing("num_prefetch", 2, "batches per iteration (pinned host buffers)",
                        "transfer or compute"),
                WorkloadParameter.choice("precision", "tf32", "the convolutions' GEMMs: tf32 (PyTorch's default for "
                        + "fp32 convolutions), fp32 (no tensor cores), bf16 or fp16 (autocast, with the classifier)",
                        "tf32", "fp32", "bf16", "fp16"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int t = Math.max(1, streamCount / 3);
        return streamIndex < t ? "transfer" : streamIndex < 2 * t ? "preprocess" : "compute";
    }

    private int prefetch() {
        return growing("num_prefetch", 2,
                Math.max(ctx.streamsWithRole("transfer").size(), ctx.streamsWithRole("compute").size()));
    }

    @Override
    protected void validate() {
        int size = ctx.intParameter("image_size");
        int prefetch = prefetch();
        if (size % 8 != 0) {
            throw new IllegalArgumentException(NAME + ": --param image_size=" + size + " is not a multiple of 8 (three "
                    + "2x2 max-pools)");
        }
        int most = Math.max(ctx.streamsWithRole("transfer").size(), ctx.streamsWithRole("compute").size());
        if (prefetch < most) {
            throw new IllegalArgumentException(NAME + ": --param num_prefetch=" + prefetch + " leaves streams idle with "
                    + ctx.streams().size() + " streams (up to " + most + " per role); use at least " + most);
        }
    }

    @Override
    protected void build() {
        batch = ctx.intParameter("batch_size");
        size = ctx.intParameter("image_size");
        prefetch = prefetch();
        precision = ctx.choiceParameter("precision");
        List<Integer> transfer = ctx.streamsWithRole("transfer");
        List<Integer> preprocess = ctx.streamsWithRole("preprocess");
        List<Integer> compute = ctx.streamsWithRole("compute");
        CudaModule kernels = keepOther(rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("dataload.cu"),
                "dataload.cu", rt.device().info().arch())));
        int pixels = batch * 3 * size * size;
        for (int j = 0; j < prefetch; j++) {
            int t = transfer.get(j % transfer.size());
            int p = preprocess.get(j % preprocess.size());
            int c = compute.get(j % compute.size());
            float[] images = new float[pixels];
            java.util.SplittableRandom random = new java.util.SplittableRandom(97 + j);
            for (int i = 0; i < pixels; i++) {
                images[i] = (float) random.nextDouble();
            }
            hostBatches.add(images);
            PinnedHostBuffer host = keepOther(rt.device().allocatePinned(4L * pixels));
            FloatBuffer fb = host.byteBuffer().order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer();
            fb.put(images);
            Tensor raw = tensor("raw batch", batch, 3, size, size);
            Tensor normed = tensor("preprocessed batch", batch, 3, size, size);
            Tensor logits = tensor("logits", batch, CLASSES);
            if (j == 0) {
                firstLogits = logits;
            }
            GpuEvent copied = event(t);
            GpuEvent prepared = event(p);
            GpuEvent classified = event(c);
            Stream ts = cs(t);
            waitOn(t, prepared); // last iteration's preprocessing has read the raw batch
            iteration.add(() -> AddressCopies.hostToDevice(raw.address(), host, 0, 4L * pixels, ts));
            recordOn(t, copied);
            waitOn(p, copied);
            waitOn(p, classified); // last iteration's forward has read the preprocessed batch
            KernelLaunch prep = kernels.kernel("normalize_flip").prepare(
                    (int) Math.min(8192, ((long) pixels + BLOCK - 1) / BLOCK), BLOCK, cs(p), 5)
                    .pointer(0, raw.address()).pointer(1, normed.address()).intArg(2, batch).intArg(3, size)
                    .intArg(4, size);
            iteration.add(prep::launch);
            recordOn(p, prepared);
            waitOn(c, prepared);
            Runnable forward = forward(c, normed, logits);
            if (j == 0) {
                firstNet = nets.get(c);
            }
            iteration.add(forward);
            recordOn(c, classified);
        }
    }

    /**
     * conv with ReLU, max-pool three times, global average pool, Linear, on compute stream {@code c} (whose op
     * context takes the precision).
     */
    private Runnable forward(int c, Tensor images, Tensor logits) {
        OpContext ops = rt.ops(c);
        ops.convTf32(precision.equals("tf32"));
        ops.autocast(precision.equals("bf16") ? DType.BF16 : precision.equals("fp16") ? DType.FP16 : null);
        ConvNet net = nets.computeIfAbsent(c, key -> {
            Conv2d[] convs = new Conv2d[3];
            for (int l = 0; l < 3; l++) {
                convs[l] = keep(new Conv2d(ops, "conv" + (l + 1), CHANNELS[l], CHANNELS[l + 1], 3, 3, 1, 1, true, 101));
            }
            return new ConvNet(convs, keep(new Linear(ops, "fc", CHANNELS[3], CLASSES, true, 101)));
        });
        MaxPool2d pool = new MaxPool2d(ops, 2, 2, 0);
        GlobalAvgPool gap = new GlobalAvgPool(ops);
        Stream s = cs(c);
        List<Runnable> steps = new ArrayList<>();
        Tensor x = images;
        int hw = size;
        for (int l = 0; l < 3; l++) {
            Tensor conv = tensor("conv output", batch, CHANNELS[l + 1], hw, hw);
            Tensor pooled = tensor("pooled", batch, CHANNELS[l + 1], hw / 2, hw / 2);
            Conv2d layer = net.convs()[l];
            Tensor in = x;
            steps.add(() -> {
                // the convolution's bias and ReLU are applied to the window maxima (exact, see forwardBiasRelu):
                // one pass over the convolution's output instead of two
                layer.forwardWithoutBias(in, conv, s);
                pool.forwardBiasRelu(conv, layer.bias(), pooled, s);
            });
            x = pooled;
            hw /= 2;
        }
        Tensor features = tensor("features", batch, CHANNELS[3]);
        Tensor last = x;
        steps.add(() -> {
            gap.forward(last, features, s);
            net.fc().forward(features, logits, s);
        });
        return () -> steps.forEach(Runnable::run);
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch * prefetch / (totalTimeMs / 1e3), "images/s");
    }

    /** The logits of the first batch's images 0 and 1 (the second flipped) against float64 from the host pixels. */
    @Override
    public Optional<String> correctnessProblem() {
        float[] got = firstLogits.toFloats();
        int images = Math.min(2, batch);
        float[] gotRows = java.util.Arrays.copyOf(got, images * CLASSES);
        double[] want = new double[images * CLASSES];
        for (int i = 0; i < images; i++) {
            System.arraycopy(reference(hostBatches.getFirst(), i), 0, want, i * CLASSES, CLASSES);
        }
        double tolerance = switch (precision) {
            case "fp32" -> Reference.TOLERANCE;
            case "tf32" -> TF32_TOLERANCE;
            default -> LOW_TOLERANCE;
        };
        return Reference.compare(NAME + " logits of images 0 and 1 of the first batch (" + precision + ")", gotRows,
                want, tolerance);
    }

    private double[] reference(float[] pixels, int image) {
        int plane = size * size;
        double[] x = new double[3 * plane];
        for (int ch = 0; ch < 3; ch++) {
            for (int r = 0; r < size; r++) {
                for (int col = 0; col < size; col++) {
                    int src = (image & 1) == 1 ? size - 1 - col : col;
                    x[ch * plane + r * size + col] = (pixels[image * 3 * plane + ch * plane + r * size + src] - MEAN[ch])
                            / STD[ch];
                }
            }
        }
        int hw = size;
        for (int l = 0; l < 3; l++) {
            Conv2d conv = firstNet.convs()[l];
            double[] y = RefConv.conv2d(x, Reference.doubles(conv.parameters().get(0).value().toFloats()),
                    Reference.doubles(conv.parameters().get(1).value().toFloats()),
                    new RefConv.Shape(1, CHANNELS[l], hw, hw, CHANNELS[l + 1], 3, 3, 1, 1));
            y = RefElementwise.relu(y);
            x = RefConv.maxPool(y, CHANNELS[l + 1], hw, hw, 2, 2, 0, new int[CHANNELS[l + 1] * (hw / 2) * (hw / 2)]);
            hw /= 2;
        }
        double[] features = RefConv.globalAvgPool(x, CHANNELS[3], hw * hw);
        return Reference.linear(features, firstNet.fc().weight().value().toFloats(), firstNet.fc().bias().value()
                .toFloats(), 1, CHANNELS[3], CLASSES, false);
    }
}
