package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.AddressCopies;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Linear;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * AORTA's zero_offload: the parameters live in pinned host memory. Per layer (Linear hidden→hidden, activation,
 * Linear hidden→hidden) the prefetch streams copy the layer's parameters to the device and the compute streams run
 * the layer with exactly those parameters as soon as they arrive; after the backward pass the offload streams copy
 * the layer's gradients back to pinned host memory. AORTA copied each parameter into a buffer nothing read and
 * crashed in its host optimizer step; the host optimizer step (host work, not device work) is left out here, so
 * every iteration computes the same values, which are checked against a float64 reference from the host parameters.
 * Streams by thirds: offload, prefetch, compute; layer l uses stream l mod (streams of the role) of each role.
 * The activation is the model module's fused GELU where AORTA has ReLU.
 */
public final class ZeroOffload implements Workload {
    public static final String NAME = "zero_offload";
    private static final int PARAMETER_SEED = 99;

    private ModelRuntime rt;
    private final List<Linear[]> layers = new ArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private final List<GpuEvent> events = new ArrayList<>();
    private final List<PinnedHostBuffer> pinned = new ArrayList<>();
    private final List<Runnable> iteration = new ArrayList<>();
    private Tensor[] inputs;
    private Tensor output;
    private float[][] hostParameters;
    private PinnedHostBuffer lastGradients;
    private float[] hostInput;
    private int batch;
    private int hidden;
    private long launches;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Parameters prefetched from pinned host memory per layer while earlier layers compute; gradients "
                + "offloaded back after the backward pass";
    }

    @Override
    public String category() {
        return "hw_queue";
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
        return List.of(WorkloadParameter.positive("num_layers", "4", "layers (Linear, activation, Linear)"),
                WorkloadParameter.positive("hidden_size", "4096", "features (each Linear is hidden x hidden)"),
                WorkloadParameter.positive("batch_size", "16", "rows per iteration"));
    }

    /** AORTA's thirds: offload S[0:t], prefetch S[t:2t], compute S[2t:n] with t = max(1, n/3). */
    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int t = Math.max(1, streamCount / 3);
        return streamIndex < t ? "offload" : streamIndex < 2 * t ? "prefetch" : "compute";
    }

    @Override
    public void setup(WorkloadContext ctx) {
        rt = ModelRuntime.open(NAME, ctx);
        int layerCount = ctx.intParameter("num_layers");
        hidden = ctx.intParameter("hidden_size");
        batch = ctx.intParameter("batch_size");
        List<GpuStream> offload = role(ctx, "offload");
        List<GpuStream> prefetch = role(ctx, "prefetch");
        List<GpuStream> compute = role(ctx, "compute");
        List<Integer> computeIndex = ctx.streamsWithRole("compute");
        int computeFirst = computeIndex.getFirst();

        hostInput = new float[batch * hidden];
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < hostInput.length; i++) {
            hostInput[i] = (float) random.nextDouble(-1, 1);
        }
        inputs = new Tensor[layerCount + 1];
        inputs[0] = keep(Tensor.of(rt.device(), "zero_offload input", DType.FP32, hostInput, batch, hidden));
        Tensor ones = keep(rt.ops(computeFirst).empty(NAME, "d(sum)/d(output)", DType.FP32, batch, hidden));
        ones.fill(1f, rt.stream(compute.getFirst()));
        hostParameters = new float[layerCount][];
        GpuEvent[] fetched = new GpuEvent[layerCount];
        GpuEvent[] forwardDone = new GpuEvent[layerCount];
        GpuEvent[] backwardDone = new GpuEvent[layerCount];
        GpuEvent[] offloaded = new GpuEvent[layerCount];
        Tensor[] pre = new Tensor[layerCount];
        Tensor[] act = new Tensor[layerCount];
        Tensor[] dAct = new Tensor[layerCount];
        Tensor[] dInput = new Tensor[layerCount];
        PinnedHostBuffer[] params = new PinnedHostBuffer[layerCount];
        PinnedHostBuffer[] grads = new PinnedHostBuffer[layerCount];
        for (int l = 0; l < layerCount; l++) {
            // made with the ops of the compute stream the layer runs on
            int runsOn = computeIndex.get(l % computeIndex.size());
            Linear fc1 = new Linear(rt.ops(runsOn), "layer" + l + ".fc1", hidden, hidden, true, 7);
            Linear fc2 = new Linear(rt.ops(runsOn), "layer" + l + ".fc2", hidden, hidden, true, 7);
            layers.add(new Linear[] {fc1, fc2});
            // different values from the layers' own initialisation: a layer that computed without its prefetched
            // parameters would fail the check
            hostParameters[l] = hostValues(fc1, fc2);
            params[l] = pin((long) hostParameters[l].length * 4);
            MemorySegment.copy(hostParameters[l], 0, params[l].segment(), ValueLayout.JAVA_FLOAT, 0,
                    hostParameters[l].length);
            grads[l] = pin((long) hostParameters[l].length * 4);
            pre[l] = keep(rt.ops(computeFirst).empty(NAME, "pre", DType.FP32, batch, hidden));
            act[l] = keep(rt.ops(computeFirst).empty(NAME, "activation", DType.FP32, batch, hidden));
            dAct[l] = keep(rt.ops(computeFirst).empty(NAME, "d activation", DType.FP32, batch, hidden));
            dInput[l] = keep(rt.ops(computeFirst).empty(NAME, "d input", DType.FP32, batch, hidden));
            inputs[l + 1] = keep(rt.ops(computeFirst).empty(NAME, "layer output", DType.FP32, batch, hidden));
            fetched[l] = event(ctx);
            forwardDone[l] = event(ctx);
            backwardDone[l] = event(ctx);
            offloaded[l] = event(ctx);
            // the first iteration's waits on the previous iteration's backward and offload are satisfied at once
            backwardDone[l].record(compute.getFirst());
            offloaded[l].record(compute.getFirst());
        }
        output = inputs[layerCount];
        lastGradients = grads[layerCount - 1];

        for (int l = 0; l < layerCount; l++) {
            int layer = l;
            Linear fc1 = layers.get(l)[0];
            Linear fc2 = layers.get(l)[1];
            GpuStream p = prefetch.get(l % prefetch.size());
            GpuStream c = compute.get(l % compute.size());
            Stream ps = rt.stream(p);
            Stream cs = rt.stream(c);
            // prefetch: only once the previous iteration's backward of this layer has stopped reading its parameters
            step(() -> p.waitEvent(backwardDone[layer]));
            step(() -> copyIn(params[layer], ps, fc1, fc2));
            step(() -> fetched[layer].record(p));
            step(() -> c.waitEvent(fetched[layer]));
            if (l > 0) {
                step(() -> c.waitEvent(forwardDone[layer - 1]));
            }
            step(() -> c.waitEvent(offloaded[layer])); // the gradients are zeroed below once they are on the host
            step(() -> {
                for (Linear fc : new Linear[] {fc1, fc2}) {
                    fc.weight().grad().zero(cs);
                    fc.bias().grad().zero(cs);
                }
            });
            step(() -> fc1.forwardGelu(inputs[layer], pre[layer], act[layer], cs));
            step(() -> fc2.forward(act[layer], inputs[layer + 1], cs));
            step(() -> forwardDone[layer].record(c));
            launches += 4 + 4 + 2 + 2; // 4 copies, 4 gradient memsets, 2 x (GEMM + fused epilogue)
        }
        for (int l = layerCount - 1; l >= 0; l--) {
            int layer = l;
            Linear fc1 = layers.get(l)[0];
            Linear fc2 = layers.get(l)[1];
            GpuStream c = compute.get(l % compute.size());
            GpuStream o = offload.get(l % offload.size());
            Stream cs = rt.stream(c);
            Stream os = rt.stream(o);
            Tensor dOut = l == layerCount - 1 ? ones : dInput[l + 1];
            step(() -> c.waitEvent(layer == layerCount - 1 ? forwardDone[layer] : backwardDone[layer + 1]));
            step(() -> fc2.backward(act[layer], dOut, dAct[layer], cs));
            step(() -> fc1.backwardGelu(inputs[layer], pre[layer], dAct[layer], layer == 0 ? null : dInput[layer], cs));
            step(() -> backwardDone[layer].record(c));
            step(() -> o.waitEvent(backwardDone[layer]));
            step(() -> copyOut(grads[layer], os, fc1, fc2));
            step(() -> offloaded[layer].record(o));
            // fc2: dx GEMM, dW GEMM, bias grad; fc1: GELU backward, dW GEMM, bias grad (+ dx GEMM above layer 0); 4 copies
            launches += 3 + 3 + (layer == 0 ? 0 : 1) + 4;
        }
    }

    private static List<GpuStream> role(WorkloadContext ctx, String role) {
        return ctx.streamsWithRole(role).stream().map(i -> ctx.streams().get(i)).toList();
    }

    /** W1, b1, W2, b2 of a layer, as PyTorch would initialise them from another seed. */
    private float[] hostValues(Linear fc1, Linear fc2) {
        float bound = Init.linearBound(hidden);
        List<float[]> parts = new ArrayList<>();
        for (Linear fc : new Linear[] {fc1, fc2}) {
            parts.add(Init.uniform(PARAMETER_SEED, fc.weight().name(), bound, hidden, hidden).toFloats());
            parts.add(Init.uniform(PARAMETER_SEED, fc.bias().name(), bound, hidden).toFloats());
        }
        float[] all = new float[parts.stream().mapToInt(a -> a.length).sum()];
        int at = 0;
        for (float[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    private void copyIn(PinnedHostBuffer host, Stream s, Linear fc1, Linear fc2) {
        long at = 0;
        for (Tensor t : tensorsOf(fc1, fc2, false)) {
            AddressCopies.hostToDevice(t.address(), host, at, t.bytes(), s);
            at += t.bytes();
        }
    }

    private void copyOut(PinnedHostBuffer host, Stream s, Linear fc1, Linear fc2) {
        long at = 0;
        for (Tensor t : tensorsOf(fc1, fc2, true)) {
            AddressCopies.deviceToHost(host, at, t.address(), t.bytes(), s);
            at += t.bytes();
        }
    }

    /** W1, b1, W2, b2 (or their gradients) in the host buffers' order. */
    private static List<Tensor> tensorsOf(Linear fc1, Linear fc2, boolean gradients) {
        List<Tensor> out = new ArrayList<>();
        for (Linear fc : new Linear[] {fc1, fc2}) {
            out.add(gradients ? fc.weight().grad() : fc.weight().value());
            out.add(gradients ? fc.bias().grad() : fc.bias().value());
        }
        return out;
    }

    private void step(Runnable r) {
        iteration.add(r);
    }

    private Tensor keep(Tensor t) {
        tensors.add(t);
        return t;
    }

    private PinnedHostBuffer pin(long bytes) {
        PinnedHostBuffer b = rt.device().allocatePinned(bytes);
        pinned.add(b);
        return b;
    }

    private GpuEvent event(WorkloadContext ctx) {
        GpuEvent e = ctx.gpu().createEvent();
        events.add(e);
        return e;
    }

    @Override
    public void runIteration(int iteration) {
        this.iteration.forEach(Runnable::run);
    }

    @Override
    public long launchesPerIteration() {
        return launches;
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "samples/s");
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /**
     * The output against float64 from the host parameters, and the last layer's second weight and bias gradients as
     * offloaded to the host (loss = sum of the output, so dW2 = column sums of the activation, db2 = batch).
     */
    @Override
    public Optional<String> correctnessProblem() {
        double[] x = Reference.doubles(hostInput);
        double[] act = null;
        int w = hidden * hidden;
        for (float[] p : hostParameters) {
            float[] w1 = java.util.Arrays.copyOfRange(p, 0, w);
            float[] b1 = java.util.Arrays.copyOfRange(p, w, w + hidden);
            float[] w2 = java.util.Arrays.copyOfRange(p, w + hidden, 2 * w + hidden);
            float[] b2 = java.util.Arrays.copyOfRange(p, 2 * w + hidden, 2 * w + 2 * hidden);
            act = Reference.linear(x, w1, b1, batch, hidden, hidden, true);
            x = Reference.linear(act, w2, b2, batch, hidden, hidden, false);
        }
        Optional<String> out = Reference.compare("zero_offload output", output.toFloats(), x);
        if (out.isPresent()) {
            return out;
        }
        double[] dW2 = new double[w];
        for (int r = 0; r < batch; r++) {
            for (int o = 0; o < hidden; o++) {
                for (int i = 0; i < hidden; i++) {
                    dW2[o * hidden + i] += act[r * hidden + i];
                }
            }
        }
        float[] grads = new float[2 * w + 2 * hidden];
        MemorySegment.copy(lastGradients.segment(), ValueLayout.JAVA_FLOAT, 0, grads, 0, grads.length);
        Optional<String> dw = Reference.compare("zero_offload offloaded dW2 of the last layer",
                java.util.Arrays.copyOfRange(grads, w + hidden, 2 * w + hidden), dW2);
        if (dw.isPresent()) {
            return dw;
        }
        double[] db2 = new double[hidden];
        java.util.Arrays.fill(db2, batch);
        return Reference.compare("zero_offload offloaded db2 of the last layer",
                java.util.Arrays.copyOfRange(grads, 2 * w + hidden, 2 * w + 2 * hidden), db2);
    }

    @Override
    public void cleanup() {
        iteration.clear();
        events.forEach(GpuEvent::close);
        events.clear();
        layers.forEach(pair -> {
            pair[0].close();
            pair[1].close();
        });
        layers.clear();
        tensors.forEach(Tensor::close);
        tensors.clear();
        pinned.forEach(PinnedHostBuffer::close);
        pinned.clear();
        if (rt != null) {
            rt.close();
            rt = null;
        }
    }
}
