package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.AddressCopies;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Linear;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * AORTA's zero_offload: the parameters live in pinned host memory. Per layer (Linear hidden→hidden, activation,
 * Linear hidden→hidden) the prefetch streams copy the layer's parameters to the device and the compute streams run
 * the layer with exactly those parameters as soon as they arrive; after the backward pass the offload streams copy
 * the layer's gradients back to pinned host memory. AORTA copied each parameter into a buffer nothing read and
 * crashed in its host optimizer step; the host optimizer step (host work, not device work) is left out here, so
 * every iteration computes the same values, which are checked against a float64 reference from the host parameters.
 * Streams by even thirds: offload, prefetch, compute; layer l uses stream l mod (streams of the role) of each role.
 * The activation is the model module's fused GELU where AORTA has ReLU.
 */
public final class ZeroOffload extends ModelWorkload {
    public static final String NAME = "zero_offload";
    private static final int PARAMETER_SEED = 99;

    private final List<Linear[]> layers = new ArrayList<>();
    private Tensor[] inputs;
    private Tensor output;
    private float[][] hostParameters;
    private PinnedHostBuffer lastGradients;
    private float[] hostInput;
    private int batch;
    private int hidden;

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

    /** Offload, prefetch, compute in even thirds (AORTA's left a compute stream idle at 11 streams). */
    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return evenThirds(streamIndex, streamCount, "offload", "prefetch", "compute");
    }

    /** Layers beyond a role's streams share them round-robin; fewer layers than a role's streams leave some idle. */
    @Override
    protected void validate() {
        int layers = ctx.intParameter("num_layers");
        int perRole = Math.max(ctx.streamsWithRole("offload").size(), Math.max(ctx.streamsWithRole("prefetch").size(),
                ctx.streamsWithRole("compute").size()));
        if (layers < perRole) {
            throw new IllegalArgumentException(NAME + ": --param num_layers=" + layers + " leaves streams of a role"
                    + " idle with " + ctx.streams().size() + " streams (up to " + perRole + " per role); use at least "
                    + perRole + " or fewer streams");
        }
    }

    @Override
    protected void build() {
        int layerCount = ctx.intParameter("num_layers");
        hidden = ctx.intParameter("hidden_size");
        batch = ctx.intParameter("batch_size");
        List<Integer> offload = ctx.streamsWithRole("offload");
        List<Integer> prefetch = ctx.streamsWithRole("prefetch");
        List<Integer> compute = ctx.streamsWithRole("compute");
        int computeFirst = compute.getFirst();

        hostInput = random(batch * hidden, 5);
        inputs = new Tensor[layerCount + 1];
        inputs[0] = keep(Tensor.of(rt.device(), "zero_offload input", DType.FP32, hostInput, batch, hidden));
        Tensor ones = tensor("d(sum)/d(output)", batch, hidden);
        ones.fill(1f, cs(computeFirst));
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
            int runsOn = compute.get(l % compute.size());
            Linear fc1 = keep(new Linear(rt.ops(runsOn), "layer" + l + ".fc1", hidden, hidden, true, 7));
            Linear fc2 = keep(new Linear(rt.ops(runsOn), "layer" + l + ".fc2", hidden, hidden, true, 7));
            layers.add(new Linear[] {fc1, fc2});
            // different values from the layers' own initialisation: a layer that computed without its prefetched
            // parameters would fail the check
            hostParameters[l] = hostValues(fc1, fc2);
            params[l] = pin((long) hostParameters[l].length * 4);
            MemorySegment.copy(hostParameters[l], 0, params[l].segment(), ValueLayout.JAVA_FLOAT, 0,
                    hostParameters[l].length);
            grads[l] = pin((long) hostParameters[l].length * 4);
            pre[l] = tensor("pre", batch, hidden);
            act[l] = tensor("activation", batch, hidden);
            dAct[l] = tensor("d activation", batch, hidden);
            dInput[l] = tensor("d input", batch, hidden);
            inputs[l + 1] = tensor("layer output", batch, hidden);
            fetched[l] = event(computeFirst);
            forwardDone[l] = event(computeFirst);
            // recorded once at creation: the first iteration's waits on the previous iteration's backward and
            // offload are satisfied at once
            backwardDone[l] = event(computeFirst);
            offloaded[l] = event(computeFirst);
        }
        output = inputs[layerCount];
        lastGradients = grads[layerCount - 1];

        for (int l = 0; l < layerCount; l++) {
            int layer = l;
            Linear fc1 = layers.get(l)[0];
            Linear fc2 = layers.get(l)[1];
            int p = prefetch.get(l % prefetch.size());
            int c = compute.get(l % compute.size());
            Stream ps = cs(p);
            Stream cs = cs(c);
            // prefetch: only once the previous iteration's backward of this layer has stopped reading its parameters
            waitOn(p, backwardDone[layer]);
            iteration.add(() -> copyIn(params[layer], ps, fc1, fc2));
            recordOn(p, fetched[layer]);
            waitOn(c, fetched[layer]);
            if (l > 0) {
                waitOn(c, forwardDone[layer - 1]);
            }
            waitOn(c, offloaded[layer]); // the gradients are zeroed below once they are on the host
            iteration.add(() -> {
                for (Linear fc : new Linear[] {fc1, fc2}) {
                    fc.weight().grad().zero(cs);
                    fc.bias().grad().zero(cs);
                }
            });
            iteration.add(() -> fc1.forwardGelu(inputs[layer], pre[layer], act[layer], cs));
            iteration.add(() -> fc2.forward(act[layer], inputs[layer + 1], cs));
            recordOn(c, forwardDone[layer]);
        }
        for (int l = layerCount - 1; l >= 0; l--) {
            int layer = l;
            Linear fc1 = layers.get(l)[0];
            Linear fc2 = layers.get(l)[1];
            int c = compute.get(l % compute.size());
            int o = offload.get(l % offload.size());
            Stream cs = cs(c);
            Stream os = cs(o);
            Tensor dOut = l == layerCount - 1 ? ones : dInput[l + 1];
            waitOn(c, layer == layerCount - 1 ? forwardDone[layer] : backwardDone[layer + 1]);
            iteration.add(() -> fc2.backward(act[layer], dOut, dAct[layer], cs));
            iteration.add(() -> fc1.backwardGelu(inputs[layer], pre[layer], dAct[layer], layer == 0 ? null
                    : dInput[layer], cs));
            recordOn(c, backwardDone[layer]);
            waitOn(o, backwardDone[layer]);
            iteration.add(() -> copyOut(grads[layer], os, fc1, fc2));
            recordOn(o, offloaded[layer]);
        }
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

    private PinnedHostBuffer pin(long bytes) {
        return keepOther(rt.device().allocatePinned(bytes));
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "samples/s");
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
        layers.clear();
        super.cleanup();
    }
}
