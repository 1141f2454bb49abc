package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.model.Tensor;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * AORTA's fsdp_tp: pre-norm transformer blocks, x1 = x + attention(LN(x)), y = x1 + MLP(LN(x1)) (h→4h→h, GELU),
 * whose attention is tensor-parallel over the world's ranks (each rank its share of the heads, the partial outputs
 * and the partial gradients of LayerNorm's output all-reduced: {@link TensorParallelAttention}) and whose MLP
 * weights are FSDP-sharded (all-gathered before each layer's forward, gradients all-reduced after its backward,
 * overlapping earlier layers' backward). Stream roles by quarters (q = max(1, n/4)): compute, all_gather,
 * all_reduce, p2p. Layer l computes on compute stream l mod |compute|, is gathered on all_gather stream
 * l mod |all_gather| and reduced (both its tensor-parallel sums and its gradients) on all_reduce stream
 * l mod |all_reduce|; the p2p streams hand each layer's output (forward) and input gradient (backward) to the next
 * layer's stream, so every stream of every role works (AORTA's p2p role never ran and only the first stream of each
 * role did). Collectives are NCCL with more than one rank, simulated copies on one (named in the result).
 * Of the parameters' gradients only what something reads is computed: the MLP's, which FSDP all-reduces (the
 * attention's are neither sharded nor reduced and no optimizer steps them). {@code weight_grads=false} is AORTA's
 * backward, autograd.grad(x.sum(), input): the input gradient alone, no MLP gradient all-reduce.
 */
public final class FsdpTp extends ModelWorkload {
    public static final String NAME = "fsdp_tp";
    private static final int SAMPLED_ROWS = 4;
    /** Entries of each MLP weight gradient checked, each a float64 sum over every row. */
    private static final int SAMPLED_WEIGHT_GRADS = 32;

    private ModelCollectives comm;
    private final List<TensorParallelAttention> attentions = new ArrayList<>();
    private final List<ResidualMlp> blocks = new ArrayList<>();
    private final List<ResidualMlp.Activations> mlpActivations = new ArrayList<>();
    /** Per layer: its input x, the attention half's output x1, its output y, and their gradients. */
    private final List<Tensor> inputs = new ArrayList<>();
    private final List<Tensor> mids = new ArrayList<>();
    private final List<Tensor> outputs = new ArrayList<>();
    private final List<Tensor> dInputs = new ArrayList<>();
    private final List<Tensor> dMids = new ArrayList<>();
    private final List<Tensor> dOutputs = new ArrayList<>();
    private Tensor reducedLastFc2;
    private float[] hostInput;
    private int hidden;
    private int rows;
    private int batch;
    private int seqLen;
    private boolean weightGrads;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Transformer layers, attention heads split over the ranks (tensor parallel), MLP weights all-gathered "
                + "before and gradients all-reduced after each layer (FSDP), hand-offs on p2p streams; NCCL with "
                + "several ranks, simulated copies on one; every stream of a role used";
    }

    @Override
    public Priority priority() {
        return Priority.P1;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(4, 16);
    }

    @Override
    public int recommendedStreams() {
        return 10;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.choice("model_size", "small", "hidden/heads 512/8 (small), 1024/16 (medium), "
                        + "2048/32 (large)", "small", "medium", "large"),
                WorkloadParameter.positive("num_layers", "4", "layers (each at least as many as the streams of a role)"),
                WorkloadParameter.positive("batch_size", "8", "sequences per iteration"),
                WorkloadParameter.positive("seq_len", "512", "rows per sequence"),
                WorkloadParameter.choice("overlap_comm_compute", "true", "false: each layer's backward waits for the "
                        + "previous layer's gradient all-reduce", "true", "false"),
                WorkloadParameter.choice("weight_grads", "true", "false: the input gradient alone, AORTA's "
                        + "autograd.grad(x.sum(), input) (no weight-gradient GEMMs, so no MLP gradient all-reduce and "
                        + "overlap_comm_compute has nothing to overlap)",
                        "true", "false"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int q = Math.max(1, streamCount / 4);
        return streamIndex < q ? "compute" : streamIndex < 2 * q ? "all_gather" : streamIndex < 3 * q ? "all_reduce"
                : "p2p";
    }

    private int heads() {
        return switch (ctx.choiceParameter("model_size")) {
            case "small" -> 8;
            case "medium" -> 16;
            default -> 32;
        };
    }

    @Override
    protected void validate() {
        int ranks = dev.aorta.workloads.dist.DistributedEnvironment.current().worldSize();
        if (heads() % ranks != 0) {
            throw new IllegalArgumentException(NAME + ": --param model_size=" + ctx.choiceParameter("model_size")
                    + " has " + heads() + " attention heads, which do not split evenly over " + ranks
                    + " tensor-parallel ranks; use a world size that divides " + heads());
        }
        int layers = ctx.intParameter("num_layers");
        int perRole = ctx.streamsWithRole("compute").size();
        if (layers < perRole) {
            throw new IllegalArgumentException(NAME + ": --param num_layers=" + layers + " leaves streams of a role "
                    + "idle with " + ctx.streams().size() + " streams (" + perRole + " per role); use at least "
                    + perRole + " layers or fewer streams");
        }
    }

    @Override
    protected void build() {
        hidden = switch (ctx.choiceParameter("model_size")) {
            case "small" -> 512;
            case "medium" -> 1024;
            default -> 2048;
        };
        int layers = ctx.intParameter("num_layers");
        batch = ctx.intParameter("batch_size");
        seqLen = ctx.intParameter("seq_len");
        rows = batch * seqLen;
        boolean overlap = ctx.choiceParameter("overlap_comm_compute").equals("true");
        weightGrads = ctx.choiceParameter("weight_grads").equals("true");
        List<Integer> compute = ctx.streamsWithRole("compute");
        List<Integer> gather = ctx.streamsWithRole("all_gather");
        List<Integer> reduce = ctx.streamsWithRole("all_reduce");
        List<Integer> p2p = ctx.streamsWithRole("p2p");
        comm = keepOther(ModelCollectives.open(rt, ctx));
        ColumnCopy handOff = keepOther(new ColumnCopy(rt));
        long sharded = 4L * hidden * hidden;
        if (sharded % (4L * comm.worldSize()) != 0) {
            throw new IllegalArgumentException(NAME + ": a layer's weight (" + sharded + " floats) does not split into "
                    + comm.worldSize() + " shards of whole 16-byte units");
        }
        hostInput = random(rows * hidden, 17);
        float[] ones = new float[rows * hidden];
        java.util.Arrays.fill(ones, 1f);
        List<Tensor[]> shards = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            int c = compute.get(l % compute.size());
            attentions.add(keep(new TensorParallelAttention(rt.ops(c), "layer" + l + ".attn.", hidden, heads(),
                    comm.rank(), comm.worldSize(), 200 + l)));
            ResidualMlp block = keep(new ResidualMlp(rt.ops(c), "layer" + l, hidden, 4 * hidden, false, 100 + l));
            blocks.add(block);
            inputs.add(l == 0 ? keep(Tensor.of(rt.device(), "fsdp_tp input", dev.aorta.model.DType.FP32, hostInput,
                    rows, hidden)) : tensor("layer input", rows, hidden));
            mids.add(tensor("attention half output", rows, hidden));
            outputs.add(tensor("layer output", rows, hidden));
            dInputs.add(tensor("layer input gradient", rows, hidden));
            dMids.add(tensor("attention half output gradient", rows, hidden));
            dOutputs.add(l == layers - 1 ? keep(Tensor.of(rt.device(), "d sum(output)", dev.aorta.model.DType.FP32,
                    ones, rows, hidden)) : tensor("layer output gradient", rows, hidden));
            // this rank's shard of each weight: its slice of the full weight, which the gather reassembles in place
            shards.add(new Tensor[] {shard(block.fc1.weight().value()), shard(block.fc2.weight().value())});
        }
        List<Tensor> reducedFc1 = new ArrayList<>();
        List<Tensor> reducedFc2 = new ArrayList<>();
        reducedLastFc2 = weightGrads ? tensor("all-reduced fc2 weight gradient", 4 * hidden * hidden) : null;
        for (int l = 0; weightGrads && l < layers; l++) {
            reducedFc1.add(tensor("all-reduced fc1 weight gradient", 4 * hidden * hidden));
            reducedFc2.add(l == layers - 1 ? reducedLastFc2 : tensor("all-reduced fc2 weight gradient",
                    4 * hidden * hidden));
        }

        GpuEvent[] gathered = new GpuEvent[layers];
        GpuEvent[] partialReady = new GpuEvent[layers];
        GpuEvent[] partialSummed = new GpuEvent[layers];
        GpuEvent[] forwardDone = new GpuEvent[layers];
        GpuEvent[] dPartialReady = new GpuEvent[layers];
        GpuEvent[] dPartialSummed = new GpuEvent[layers];
        GpuEvent[] backwardDone = new GpuEvent[layers];
        GpuEvent[] inputGradDone = new GpuEvent[layers];
        GpuEvent[] reduced = new GpuEvent[layers];
        GpuEvent[] inputReady = new GpuEvent[layers];
        GpuEvent[] gradReady = new GpuEvent[layers];
        for (int l = 0; l < layers; l++) {
            int c = compute.get(l % compute.size());
            int r = reduce.get(l % reduce.size());
            gathered[l] = event(gather.get(l % gather.size()));
            partialReady[l] = event(c);
            partialSummed[l] = event(r);
            forwardDone[l] = event(c);
            dPartialReady[l] = event(c);
            dPartialSummed[l] = event(r);
            backwardDone[l] = event(c);
            inputGradDone[l] = event(c);
            reduced[l] = event(r);
            inputReady[l] = event(c);
            gradReady[l] = event(c);
        }
        List<TensorParallelAttention.Activations> attActs = new ArrayList<>();
        List<ResidualMlp.Activations> acts = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            attActs.add(keepOther(attentions.get(l).activations(batch, seqLen)));
            acts.add(keepOther(blocks.get(l).activations(rows)));
        }
        mlpActivations.addAll(acts);
        int handOffs = 0;
        // forward: the attention half (its partial output summed over the group on the all_reduce stream), then the
        // MLP half once its weights are gathered (after the previous iteration's backward of the layer read them)
        for (int l = 0; l < layers; l++) {
            int g = gather.get(l % gather.size());
            int c = compute.get(l % compute.size());
            int r = reduce.get(l % reduce.size());
            TensorParallelAttention attention = attentions.get(l);
            ResidualMlp block = blocks.get(l);
            Tensor[] own = shards.get(l);
            waitOn(g, backwardDone[l]);
            iteration.add(() -> comm.allGather(own[0], block.fc1.weight().value(), gs(g)));
            iteration.add(() -> comm.allGather(own[1], block.fc2.weight().value(), gs(g)));
            recordOn(g, gathered[l]);
            if (l > 0) {
                waitOn(c, inputReady[l]);
            }
            Tensor x = inputs.get(l);
            Tensor x1 = mids.get(l);
            Tensor y = outputs.get(l);
            TensorParallelAttention.Activations aa = attActs.get(l);
            ResidualMlp.Activations a = acts.get(l);
            iteration.add(() -> attention.forwardPartial(x, aa, cs(c)));
            recordOn(c, partialReady[l]);
            waitOn(r, partialReady[l]);
            iteration.add(() -> comm.allReduce(aa.partial, aa.output, gs(r)));
            recordOn(r, partialSummed[l]);
            waitOn(c, partialSummed[l]);
            iteration.add(() -> attention.forwardResidual(x, aa, x1, cs(c)));
            waitOn(c, gathered[l]);
            iteration.add(() -> block.forward(x1, y, a, cs(c)));
            recordOn(c, forwardDone[l]);
            if (l + 1 < layers) {
                int p = p2p.get(handOffs++ % p2p.size());
                waitOn(p, forwardDone[l]);
                waitOn(p, backwardDone[l + 1]); // the next layer's previous backward still reads its input
                KernelLaunch copy = handOff.prepare(y, inputs.get(l + 1), 0, cs(p));
                iteration.add(copy::launch);
                recordOn(p, inputReady[l + 1]);
            }
        }
        // backward of sum(output): layer by layer in reverse, the input gradient first (on each layer's all_reduce
        // stream the sum of the attention's partial input gradients); once it is handed to the previous layer, the
        // MLP's parameter gradients on the layer's compute stream, then their all-reduce on its all_reduce stream,
        // while earlier layers' backward runs
        for (int l = layers - 1; l >= 0; l--) {
            int c = compute.get(l % compute.size());
            int r = reduce.get(l % reduce.size());
            TensorParallelAttention attention = attentions.get(l);
            ResidualMlp block = blocks.get(l);
            if (l + 1 < layers) {
                waitOn(c, gradReady[l]);
                if (!overlap && weightGrads) {
                    waitOn(c, reduced[l + 1]);
                }
            }
            if (weightGrads) {
                waitOn(c, reduced[l]); // the previous iteration's all-reduce of these gradients has read them
            }
            Tensor x = inputs.get(l);
            Tensor x1 = mids.get(l);
            Tensor dy = dOutputs.get(l);
            Tensor dx1 = dMids.get(l);
            Tensor dx = dInputs.get(l);
            TensorParallelAttention.Activations aa = attActs.get(l);
            ResidualMlp.Activations a = acts.get(l);
            if (weightGrads) {
                iteration.add(() -> block.zeroGrad(cs(c)));
            }
            iteration.add(() -> block.backwardInput(x1, dy, dx1, a, cs(c)));
            iteration.add(() -> attention.backwardPartial(dx1, aa, cs(c)));
            recordOn(c, dPartialReady[l]);
            waitOn(r, dPartialReady[l]);
            iteration.add(() -> comm.allReduce(aa.dNormedPartial, aa.dNormed, gs(r)));
            recordOn(r, dPartialSummed[l]);
            waitOn(c, dPartialSummed[l]);
            iteration.add(() -> attention.backwardResidual(x, dx1, aa, dx, cs(c)));
            recordOn(c, inputGradDone[l]);
            if (l > 0) {
                int p = p2p.get(handOffs++ % p2p.size());
                waitOn(p, inputGradDone[l]);
                KernelLaunch copy = handOff.prepare(dx, dOutputs.get(l - 1), 0, cs(p));
                iteration.add(copy::launch);
                recordOn(p, gradReady[l - 1]);
            }
            if (weightGrads) {
                // the MLP's parameter gradients once the input gradient has gone on: the previous layer's backward,
                // on the next compute stream, overlaps them (the GPU's idle moments between its dependent kernels)
                iteration.add(() -> block.paramGrads(x1, dy, a, cs(c)));
            }
            recordOn(c, backwardDone[l]);
            if (weightGrads) {
                Tensor r1 = reducedFc1.get(l);
                Tensor r2 = reducedFc2.get(l);
                waitOn(r, backwardDone[l]);
                iteration.add(() -> comm.allReduce(block.fc1.weight().grad(), r1, gs(r)));
                iteration.add(() -> comm.allReduce(block.fc2.weight().grad(), r2, gs(r)));
                recordOn(r, reduced[l]);
            }
        }
    }

    private Tensor shard(Tensor full) {
        int n = (int) (full.numel() / comm.worldSize());
        Tensor s = tensor("weight shard", n);
        float[] all = full.toFloats();
        s.copyFrom(java.util.Arrays.copyOfRange(all, comm.rank() * n, (comm.rank() + 1) * n));
        return s;
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "samples/s");
    }

    @Override
    public Map<String, Object> results(List<List<dev.aorta.core.event.DeviceActivity>> iterations, List<Long> ids) {
        return Map.of("collectives", comm.kind(), "weight_grads", weightGrads);
    }

    /**
     * Every layer against float64 from the values the device gave it, which together check the whole computation:
     * the attention half (forward and input gradient) over the last sequence (attention mixes a sequence's rows),
     * the MLP half (forward and input gradient, row-wise) on sampled rows, the hand-offs between layers exactly; and
     * with weight_grads the last layer's all-reduced fc2 weight gradient against world size × its own (every rank
     * computes on the same data). The attention references of the layers run in parallel on the host.
     */
    @Override
    public Optional<String> correctnessProblem() {
        int layers = blocks.size();
        List<float[]> x = read(inputs);
        List<float[]> x1 = read(mids);
        List<float[]> y = read(outputs);
        List<float[]> dx = read(dInputs);
        List<float[]> dx1 = read(dMids);
        List<float[]> dy = read(dOutputs);
        List<Supplier<Optional<String>>> checks = new ArrayList<>();
        for (int l = 0; l + 1 < layers; l++) {
            int layer = l;
            checks.add(() -> java.util.Arrays.equals(y.get(layer), x.get(layer + 1)) ? Optional.empty()
                    : Optional.of(NAME + ": layer " + (layer + 1) + "'s input differs from layer " + layer
                    + "'s output (the p2p hand-off)"));
            checks.add(() -> java.util.Arrays.equals(dx.get(layer + 1), dy.get(layer)) ? Optional.empty()
                    : Optional.of(NAME + ": layer " + layer + "'s output gradient differs from layer " + (layer + 1)
                    + "'s input gradient (the p2p hand-off)"));
        }
        for (int l = 0; l < layers; l++) {
            checks.add(mlpCheck(l, x1.get(l), y.get(l), dy.get(l), dx1.get(l)));
        }
        int from = (batch - 1) * seqLen * hidden;
        int to = batch * seqLen * hidden;
        List<Supplier<Optional<String>>> attentionChecks = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            int layer = l;
            TensorParallelAttention.HostReference ref = attentions.get(l).hostReference();
            double[] xs = Reference.doubles(java.util.Arrays.copyOfRange(x.get(l), from, to));
            float[] gotX1 = java.util.Arrays.copyOfRange(x1.get(l), from, to);
            float[] gotDx = java.util.Arrays.copyOfRange(dx.get(l), from, to);
            double[] dx1s = Reference.doubles(java.util.Arrays.copyOfRange(dx1.get(l), from, to));
            attentionChecks.add(() -> Reference.compare(NAME + " layer " + layer + " attention output (last sequence)",
                    gotX1, ref.forward(xs, seqLen)).or(() -> Reference.compare(NAME + " layer " + layer
                    + " attention input gradient (last sequence)", gotDx, ref.backward(xs, dx1s, seqLen))));
        }
        for (int l = 0; weightGrads && l < layers; l++) {
            int layer = l;
            float[] dyl = dy.get(l);
            checks.add(() -> weightGradCheck(layer, dyl));
        }
        if (weightGrads) {
            float[] reducedGrad = reducedLastFc2.toFloats();
            double[] want = Reference.doubles(blocks.getLast().fc2.weight().grad().toFloats());
            for (int i = 0; i < want.length; i++) {
                want[i] *= comm.worldSize();
            }
            checks.add(() -> Reference.compare(NAME + " all-reduced fc2 weight gradient of the last layer",
                    reducedGrad, want));
        }
        List<Optional<String>> attentionResults = attentionChecks.parallelStream().map(Supplier::get).toList();
        return java.util.stream.Stream.concat(checks.stream().map(Supplier::get), attentionResults.stream())
                .flatMap(Optional::stream).findFirst();
    }

    /** The MLP half of layer l on sampled rows: y from the device's x1, dx1 from the device's x1 and dy. */
    private Supplier<Optional<String>> mlpCheck(int l, float[] x1, float[] y, float[] dy, float[] dx1) {
        ResidualMlp block = blocks.get(l);
        float[] gotY = new float[SAMPLED_ROWS * hidden];
        float[] gotDx1 = new float[SAMPLED_ROWS * hidden];
        double[] wantY = new double[SAMPLED_ROWS * hidden];
        double[] wantDx1 = new double[SAMPLED_ROWS * hidden];
        for (int j = 0; j < SAMPLED_ROWS; j++) {
            int r = (int) ((long) (rows - 1) * j / (SAMPLED_ROWS - 1));
            double[] in = Reference.doubles(java.util.Arrays.copyOfRange(x1, r * hidden, (r + 1) * hidden));
            double[] g = Reference.doubles(java.util.Arrays.copyOfRange(dy, r * hidden, (r + 1) * hidden));
            System.arraycopy(block.referenceForward(in), 0, wantY, j * hidden, hidden);
            System.arraycopy(block.referenceBackward(in, g), 0, wantDx1, j * hidden, hidden);
            System.arraycopy(y, r * hidden, gotY, j * hidden, hidden);
            System.arraycopy(dx1, r * hidden, gotDx1, j * hidden, hidden);
        }
        return () -> Reference.compare(NAME + " layer " + l + " MLP output (" + SAMPLED_ROWS + " sampled rows)", gotY,
                wantY).or(() -> Reference.compare(NAME + " layer " + l + " MLP input gradient (" + SAMPLED_ROWS
                + " sampled rows)", gotDx1, wantDx1));
    }

    /**
     * Sampled entries of layer l's fc2 and fc1 weight gradients (dW = dyᵀ·x over every row) against float64 sums of
     * the device's own GEMM operands: fc2's output gradient dy and input (the activation), fc1's pre-activation
     * gradient (the backward pass leaves it in the activation-gradient buffer) and input (the normed rows).
     */
    private Optional<String> weightGradCheck(int l, float[] dy) {
        ResidualMlp block = blocks.get(l);
        ResidualMlp.Activations a = mlpActivations.get(l);
        int inner = 4 * hidden;
        return sampledWeightGrad(NAME + " layer " + l + " fc2 weight gradient", block.fc2.weight().grad().toFloats(),
                dy, hidden, a.act.toFloats(), inner)
                .or(() -> sampledWeightGrad(NAME + " layer " + l + " fc1 weight gradient",
                        block.fc1.weight().grad().toFloats(), a.dact.toFloats(), inner, a.normed.toFloats(), hidden));
    }

    /** grad [outs, ins] against Σ_r dy[r, o]·x[r, k] at {@value #SAMPLED_WEIGHT_GRADS} spread (o, k). */
    private Optional<String> sampledWeightGrad(String what, float[] grad, float[] dy, int outs, float[] x, int ins) {
        float[] got = new float[SAMPLED_WEIGHT_GRADS];
        double[] want = new double[SAMPLED_WEIGHT_GRADS];
        for (int j = 0; j < SAMPLED_WEIGHT_GRADS; j++) {
            int o = (int) ((long) j * 7919 % outs);
            int k = (int) ((long) j * 104_729 % ins);
            double sum = 0;
            for (int r = 0; r < rows; r++) {
                sum += (double) dy[r * outs + o] * x[r * ins + k];
            }
            want[j] = sum;
            got[j] = grad[o * ins + k];
        }
        return Reference.compare(what + " (" + SAMPLED_WEIGHT_GRADS + " sampled entries)", got, want);
    }

    private static List<float[]> read(List<Tensor> tensors) {
        return tensors.stream().map(Tensor::toFloats).toList();
    }

    @Override
    public void cleanup() {
        attentions.clear();
        blocks.clear();
        mlpActivations.clear();
        for (List<Tensor> l : List.of(inputs, mids, outputs, dInputs, dMids, dOutputs)) {
            l.clear();
        }
        super.cleanup();
    }
}
