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

/**
 * AORTA's fsdp_tp: FSDP-style layers whose weights are all-gathered from shards before their forward and whose
 * gradients are all-reduced after their backward, overlapping the next layer's work. Stream roles by quarters
 * (q = max(1, n/4)): compute, all_gather, all_reduce, p2p. Layer l computes on compute stream l mod |compute|, is
 * gathered on all_gather stream l mod |all_gather| and reduced on all_reduce stream l mod |all_reduce|; the p2p
 * streams hand each layer's output (forward) and input gradient (backward) to the next layer's stream, so every
 * stream of every role works (AORTA's p2p role never ran and only the first stream of each role did). Collectives
 * are NCCL with more than one rank, simulated copies on one (named in the result). The block is pre-norm
 * LayerNorm, MLP h→4h→h with GELU, residual: AORTA's attention half is left out (the model module's trainable
 * attention is not wired into these blocks yet), so its throughput is not comparable with AORTA's.
 */
public final class FsdpTp extends ModelWorkload {
    public static final String NAME = "fsdp_tp";
    private static final int SAMPLED_ROWS = 4;

    private ModelCollectives comm;
    private final List<ResidualMlp> blocks = new ArrayList<>();
    private final List<Tensor> inputs = new ArrayList<>();
    private final List<Tensor> outputs = new ArrayList<>();
    private final List<Tensor> dInputs = new ArrayList<>();
    private final List<Tensor> dOutputs = new ArrayList<>();
    private Tensor reducedLastFc2;
    private float[] hostInput;
    private int hidden;
    private int rows;
    private int batch;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "FSDP layers: weights all-gathered before and gradients all-reduced after each layer, hand-offs on p2p "
                + "streams; NCCL with several ranks, simulated copies on one; every stream of a role used";
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
        return List.of(WorkloadParameter.choice("model_size", "small", "hidden 512 (small), 1024 (medium), 2048 (large)",
                        "small", "medium", "large"),
                WorkloadParameter.positive("num_layers", "4", "layers (each at least as many as the streams of a role)"),
                WorkloadParameter.positive("batch_size", "8", "sequences per iteration"),
                WorkloadParameter.positive("seq_len", "512", "rows per sequence"),
                WorkloadParameter.choice("overlap_comm_compute", "true", "false: each layer's backward waits for the "
                        + "previous layer's gradient all-reduce", "true", "false"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int q = Math.max(1, streamCount / 4);
        return streamIndex < q ? "compute" : streamIndex < 2 * q ? "all_gather" : streamIndex < 3 * q ? "all_reduce"
                : "p2p";
    }

    @Override
    protected void validate() {
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
        rows = batch * ctx.intParameter("seq_len");
        boolean overlap = ctx.choiceParameter("overlap_comm_compute").equals("true");
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
            ResidualMlp block = keep(new ResidualMlp(rt.ops(c), "layer" + l, hidden, 4 * hidden, false, 100 + l));
            blocks.add(block);
            inputs.add(l == 0 ? keep(Tensor.of(rt.device(), "fsdp_tp input", dev.aorta.model.DType.FP32, hostInput,
                    rows, hidden)) : tensor("layer input", rows, hidden));
            outputs.add(tensor("layer output", rows, hidden));
            dInputs.add(tensor("layer input gradient", rows, hidden));
            dOutputs.add(l == layers - 1 ? keep(Tensor.of(rt.device(), "d sum(output)", dev.aorta.model.DType.FP32,
                    ones, rows, hidden)) : tensor("layer output gradient", rows, hidden));
            // this rank's shard of each weight: its slice of the full weight, which the gather reassembles in place
            shards.add(new Tensor[] {shard(block.fc1.weight().value()), shard(block.fc2.weight().value())});
        }
        reducedLastFc2 = tensor("all-reduced fc2 weight gradient", 4 * hidden * hidden);
        List<Tensor> reducedFc1 = new ArrayList<>();
        List<Tensor> reducedFc2 = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            reducedFc1.add(tensor("all-reduced fc1 weight gradient", 4 * hidden * hidden));
            reducedFc2.add(l == layers - 1 ? reducedLastFc2 : tensor("all-reduced fc2 weight gradient",
                    4 * hidden * hidden));
        }

        GpuEvent[] gathered = new GpuEvent[layers];
        GpuEvent[] forwardDone = new GpuEvent[layers];
        GpuEvent[] backwardDone = new GpuEvent[layers];
        GpuEvent[] reduced = new GpuEvent[layers];
        GpuEvent[] inputReady = new GpuEvent[layers];
        GpuEvent[] gradReady = new GpuEvent[layers];
        for (int l = 0; l < layers; l++) {
            int c = compute.get(l % compute.size());
            gathered[l] = event(gather.get(l % gather.size()));
            forwardDone[l] = event(c);
            backwardDone[l] = event(c);
            reduced[l] = event(reduce.get(l % reduce.size()));
            inputReady[l] = event(c);
            gradReady[l] = event(c);
        }
        List<ResidualMlp.Activations> acts = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            acts.add(keepOther(blocks.get(l).activations(rows)));
        }
        int handOffs = 0;
        // forward: gather layer l's weights (after the previous iteration's backward of l read them), compute
        for (int l = 0; l < layers; l++) {
            int g = gather.get(l % gather.size());
            int c = compute.get(l % compute.size());
            ResidualMlp block = blocks.get(l);
            Tensor[] own = shards.get(l);
            waitOn(g, backwardDone[l]);
            iteration.add(() -> comm.allGather(own[0], block.fc1.weight().value(), gs(g)));
            iteration.add(() -> comm.allGather(own[1], block.fc2.weight().value(), gs(g)));
            recordOn(g, gathered[l]);
            waitOn(c, gathered[l]);
            if (l > 0) {
                waitOn(c, inputReady[l]);
            }
            Tensor x = inputs.get(l);
            Tensor y = outputs.get(l);
            ResidualMlp.Activations a = acts.get(l);
            iteration.add(() -> block.forward(x, y, a, cs(c)));
            launches(2 + block.forwardLaunches);
            recordOn(c, forwardDone[l]);
            if (l + 1 < layers) {
                int p = p2p.get(handOffs++ % p2p.size());
                waitOn(p, forwardDone[l]);
                waitOn(p, backwardDone[l + 1]); // the next layer's previous backward still reads its input
                KernelLaunch copy = handOff.prepare(y, inputs.get(l + 1), 0, cs(p));
                iteration.add(copy::launch);
                launches(1);
                recordOn(p, inputReady[l + 1]);
            }
        }
        // backward of sum(output): layer by layer in reverse; each layer's gradients all-reduced on its stream
        for (int l = layers - 1; l >= 0; l--) {
            int c = compute.get(l % compute.size());
            int r = reduce.get(l % reduce.size());
            ResidualMlp block = blocks.get(l);
            if (l + 1 < layers) {
                waitOn(c, gradReady[l]);
                if (!overlap) {
                    waitOn(c, reduced[l + 1]);
                }
            }
            waitOn(c, reduced[l]); // the previous iteration's all-reduce of these gradients has read them
            Tensor x = inputs.get(l);
            Tensor dy = dOutputs.get(l);
            Tensor dx = dInputs.get(l);
            ResidualMlp.Activations a = acts.get(l);
            iteration.add(() -> block.zeroGrad(cs(c)));
            iteration.add(() -> block.backward(x, dy, dx, a, cs(c)));
            launches(ResidualMlp.BACKWARD_LAUNCHES);
            recordOn(c, backwardDone[l]);
            waitOn(r, backwardDone[l]);
            Tensor r1 = reducedFc1.get(l);
            Tensor r2 = reducedFc2.get(l);
            iteration.add(() -> comm.allReduce(block.fc1.weight().grad(), r1, gs(r)));
            iteration.add(() -> comm.allReduce(block.fc2.weight().grad(), r2, gs(r)));
            launches(2);
            recordOn(r, reduced[l]);
            if (l > 0) {
                int p = p2p.get(handOffs++ % p2p.size());
                waitOn(p, backwardDone[l]);
                KernelLaunch copy = handOff.prepare(dx, dOutputs.get(l - 1), 0, cs(p));
                iteration.add(copy::launch);
                launches(1);
                recordOn(p, gradReady[l - 1]);
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
        return Map.of("collectives", comm.kind());
    }

    /**
     * Sampled rows of the output and of the input gradient against float64 (every op is row-wise), and the last
     * layer's all-reduced fc2 weight gradient against world size × its own (every rank computes on the same data).
     */
    @Override
    public Optional<String> correctnessProblem() {
        float[] out = outputs.getLast().toFloats();
        float[] din = dInputs.getFirst().toFloats();
        float[] gotOut = new float[SAMPLED_ROWS * hidden];
        float[] gotDin = new float[SAMPLED_ROWS * hidden];
        double[] wantOut = new double[SAMPLED_ROWS * hidden];
        double[] wantDin = new double[SAMPLED_ROWS * hidden];
        for (int j = 0; j < SAMPLED_ROWS; j++) {
            int r = (int) ((long) (rows - 1) * j / (SAMPLED_ROWS - 1));
            double[] x = Reference.doubles(java.util.Arrays.copyOfRange(hostInput, r * hidden, (r + 1) * hidden));
            List<double[]> layerInputs = new ArrayList<>();
            for (ResidualMlp b : blocks) {
                layerInputs.add(x);
                x = b.referenceForward(x);
            }
            double[] dy = new double[hidden];
            java.util.Arrays.fill(dy, 1.0);
            for (int l = blocks.size() - 1; l >= 0; l--) {
                dy = blocks.get(l).referenceBackward(layerInputs.get(l), dy);
            }
            System.arraycopy(x, 0, wantOut, j * hidden, hidden);
            System.arraycopy(dy, 0, wantDin, j * hidden, hidden);
            System.arraycopy(out, r * hidden, gotOut, j * hidden, hidden);
            System.arraycopy(din, r * hidden, gotDin, j * hidden, hidden);
        }
        float[] reducedGrad = reducedLastFc2.toFloats();
        double[] want = Reference.doubles(blocks.getLast().fc2.weight().grad().toFloats());
        for (int i = 0; i < want.length; i++) {
            want[i] *= comm.worldSize();
        }
        return Reference.compare(NAME + " output (" + SAMPLED_ROWS + " sampled rows)", gotOut, wantOut)
                .or(() -> Reference.compare(NAME + " input gradient (" + SAMPLED_ROWS + " sampled rows)", gotDin, wantDin))
                .or(() -> Reference.compare(NAME + " all-reduced fc2 weight gradient of the last layer", reducedGrad, want));
    }
}
