package dev.aorta.workloads.model;

import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AORTA's activation_ckpt, made to run (AORTA's raises "One of the differentiated Tensors does not require grad"):
 * residual MLP blocks (LayerNorm, Linear h→4h, ReLU, Linear 4h→h, residual) in segments of
 * {@code checkpoint_every}; the forward keeps only each segment's input (the checkpoint); the backward goes over the
 * segments in reverse, recomputing a segment's activations from its checkpoint on a recompute stream while the
 * gradient streams run the previous segment's backward, then all-reduces the segment's weight gradients (NCCL with
 * several ranks, simulated copies on one). Streams by even thirds: forward, recompute, gradient; segment s uses stream
 * s mod k of each role, and recomputed activations live in two alternating buffers (the checkpointing memory bound).
 */
public final class ActivationCkpt extends ModelWorkload {
    public static final String NAME = "activation_ckpt";
    private static final int SAMPLED_ROWS = 4;
    private static final int BUFFERS = 2;

    private ModelCollectives comm;
    /** Per block, the same weights on the forward, recompute and gradient stream of its segment (own cuBLAS handles). */
    private final List<ResidualMlp[]> blocks = new ArrayList<>();
    private final List<Tensor> checkpoints = new ArrayList<>();
    private Tensor inputGradient;
    private Tensor recomputedFirstSegmentOutput;
    private float[] hostInput;
    private int hidden;
    private int rows;
    private int batch;
    private int perSegment;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Checkpointed residual MLP: forward keeps segment inputs, backward recomputes each segment on recompute "
                + "streams beside the gradient streams (AORTA's crashes); gradients all-reduced, simulated on one GPU";
    }

    @Override
    public Priority priority() {
        return Priority.P2;
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
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("num_blocks", "8", "residual MLP blocks"),
                WorkloadParameter.positive("hidden_size", "1024", "features h (the MLP is h -> 4h -> h)"),
                WorkloadParameter.positive("checkpoint_every", "2", "blocks per checkpointed segment"),
                WorkloadParameter.positive("batch_size", "4", "sequences per iteration"),
                WorkloadParameter.positive("seq_len", "512", "rows per sequence"));
    }

    /** Forward, recompute, gradient in even thirds (AORTA's left gradient streams idle at 11 streams). */
    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return evenThirds(streamIndex, streamCount, "forward", "recompute", "gradient");
    }

    @Override
    protected void validate() {
        int numBlocks = ctx.intParameter("num_blocks");
        int every = ctx.intParameter("checkpoint_every");
        if (numBlocks % every != 0) {
            throw new IllegalArgumentException(NAME + ": --param num_blocks=" + numBlocks
                    + " is not a multiple of checkpoint_every=" + every + " (every segment has the same blocks)");
        }
        int segments = numBlocks / every;
        int perRole = Math.max(ctx.streamsWithRole("forward").size(), ctx.streamsWithRole("gradient").size());
        if (segments < perRole) {
            throw new IllegalArgumentException(NAME + ": " + segments + " segments (num_blocks / checkpoint_every) leave "
                    + "streams of a role idle with " + ctx.streams().size() + " streams (up to " + perRole
                    + " per role); use more segments or fewer streams");
        }
    }

    @Override
    protected void build() {
        int numBlocks = ctx.intParameter("num_blocks");
        hidden = ctx.intParameter("hidden_size");
        perSegment = ctx.intParameter("checkpoint_every");
        batch = ctx.intParameter("batch_size");
        rows = batch * ctx.intParameter("seq_len");
        int segments = numBlocks / perSegment;
        List<Integer> fwd = ctx.streamsWithRole("forward");
        List<Integer> rec = ctx.streamsWithRole("recompute");
        List<Integer> grad = ctx.streamsWithRole("gradient");
        ModelCollectives.requireUnits(NAME, "a weight", 4L * hidden * hidden);
        comm = keepOther(ModelCollectives.open(rt, ctx));
        hostInput = random(rows * hidden, 23);
        for (int s = 0; s <= segments; s++) {
            checkpoints.add(s == 0 ? keep(Tensor.of(rt.device(), NAME + " input", DType.FP32, hostInput, rows, hidden))
                    : tensor("checkpoint", rows, hidden));
        }
        for (int b = 0; b < numBlocks; b++) {
            int s = b / perSegment;
            int[] on = {fwd.get(s % fwd.size()), rec.get(s % rec.size()), grad.get(s % grad.size())};
            ResidualMlp[] replicas = new ResidualMlp[3];
            for (int k = 0; k < 3; k++) {
                replicas[k] = keep(new ResidualMlp(rt.ops(on[k]), "block" + b, hidden, 4 * hidden, true, 200 + b));
            }
            blocks.add(replicas);
        }
        // per forward stream: scratch activations and the intermediate block outputs inside a segment
        Map<Integer, ResidualMlp.Activations> forwardScratch = new java.util.HashMap<>();
        Map<Integer, Tensor[]> forwardInner = new java.util.HashMap<>();
        for (int f : fwd) {
            forwardScratch.put(f, keepOther(blocks.getFirst()[0].activations(rows)));
            forwardInner.put(f, innerTensors());
        }
        // the recomputed activations of a segment: every block's, in one of two alternating buffers
        List<ResidualMlp.Activations[]> recomputed = new ArrayList<>();
        List<Tensor[]> recomputedInner = new ArrayList<>();
        for (int i = 0; i < BUFFERS; i++) {
            ResidualMlp.Activations[] set = new ResidualMlp.Activations[perSegment];
            for (int j = 0; j < perSegment; j++) {
                set[j] = keepOther(blocks.getFirst()[1].activations(rows));
            }
            recomputed.add(set);
            recomputedInner.add(innerTensors());
        }
        Tensor[] recomputedOutputs = {tensor("recomputed segment output", rows, hidden),
                tensor("recomputed segment output", rows, hidden)};
        recomputedFirstSegmentOutput = recomputedOutputs[0];
        float[] ones = new float[rows * hidden];
        Arrays.fill(ones, 1f);
        Tensor[] segmentGrads = new Tensor[segments + 1];
        segmentGrads[segments] = keep(Tensor.of(rt.device(), "d sum(output)", DType.FP32, ones, rows, hidden));
        for (int s = 0; s < segments; s++) {
            segmentGrads[s] = tensor("checkpoint gradient", rows, hidden);
        }
        inputGradient = segmentGrads[0];
        Tensor[] innerGrad = {tensor("block output gradient", rows, hidden), tensor("block output gradient", rows, hidden)};
        List<Tensor[]> reducedGrads = new ArrayList<>();
        for (int b = 0; b < numBlocks; b++) {
            reducedGrads.add(new Tensor[] {tensor("all-reduced fc1 weight gradient", 4 * hidden * hidden),
                    tensor("all-reduced fc2 weight gradient", 4 * hidden * hidden)});
        }

        GpuEvent[] forwardDone = new GpuEvent[segments];
        GpuEvent[] recomputeDone = new GpuEvent[segments];
        GpuEvent[] gradientDone = new GpuEvent[segments];
        for (int s = 0; s < segments; s++) {
            forwardDone[s] = event(fwd.get(s % fwd.size()));
            recomputeDone[s] = event(rec.get(s % rec.size()));
            gradientDone[s] = event(grad.get(s % grad.size()));
        }
        // forward: segment after segment, keeping only the checkpoints
        for (int s = 0; s < segments; s++) {
            int f = fwd.get(s % fwd.size());
            if (s > 0) {
                waitOn(f, forwardDone[s - 1]);
            }
            if (s + 1 < segments) {
                // last iteration's recompute and backward of segment s + 1 read the checkpoint this writes
                waitOn(f, recomputeDone[s + 1]);
                waitOn(f, gradientDone[s + 1]);
            }
            for (int j = 0; j < perSegment; j++) {
                ResidualMlp block = blocks.get(s * perSegment + j)[0];
                Tensor x = j == 0 ? checkpoints.get(s) : forwardInner.get(f)[j - 1];
                Tensor y = j == perSegment - 1 ? checkpoints.get(s + 1) : forwardInner.get(f)[j];
                ResidualMlp.Activations a = forwardScratch.get(f);
                iteration.add(() -> block.forward(x, y, a, cs(f)));
            }
            recordOn(f, forwardDone[s]);
        }
        // backward: recompute segment s (buffer s mod 2) while the gradient streams work on segment s + 1
        for (int s = segments - 1; s >= 0; s--) {
            int r = rec.get(s % rec.size());
            int g = grad.get(s % grad.size());
            int buffer = s % BUFFERS;
            waitOn(r, forwardDone[segments - 1]);
            if (s + BUFFERS < segments) {
                waitOn(r, gradientDone[s + BUFFERS]); // that segment's backward has finished with this buffer
            }
            waitOn(r, gradientDone[s]); // the previous iteration's backward of s read this buffer too
            ResidualMlp.Activations[] acts = recomputed.get(buffer);
            Tensor[] inner = recomputedInner.get(buffer);
            for (int j = 0; j < perSegment; j++) {
                ResidualMlp block = blocks.get(s * perSegment + j)[1];
                Tensor x = j == 0 ? checkpoints.get(s) : inner[j - 1];
                Tensor y = j == perSegment - 1 ? recomputedOutputs[buffer] : inner[j];
                ResidualMlp.Activations a = acts[j];
                iteration.add(() -> block.forward(x, y, a, cs(r)));
            }
            recordOn(r, recomputeDone[s]);
            waitOn(g, recomputeDone[s]);
            if (s + 1 < segments) {
                waitOn(g, gradientDone[s + 1]);
            }
            for (int j = perSegment - 1; j >= 0; j--) {
                int b = s * perSegment + j;
                ResidualMlp block = blocks.get(b)[2];
                Tensor x = j == 0 ? checkpoints.get(s) : inner[j - 1];
                Tensor dy = j == perSegment - 1 ? segmentGrads[s + 1] : innerGrad[j % 2];
                Tensor dx = j == 0 ? segmentGrads[s] : innerGrad[(j - 1) % 2];
                ResidualMlp.Activations a = acts[j];
                Tensor[] reduced = reducedGrads.get(b);
                iteration.add(() -> block.zeroGrad(cs(g)));
                iteration.add(() -> block.backward(x, dy, dx, a, cs(g)));
                iteration.add(() -> comm.allReduce(block.fc1.weight().grad(), reduced[0], gs(g)));
                iteration.add(() -> comm.allReduce(block.fc2.weight().grad(), reduced[1], gs(g)));
            }
            recordOn(g, gradientDone[s]);
        }
    }

    /** The block outputs inside a segment (all but the last block's). */
    private Tensor[] innerTensors() {
        Tensor[] t = new Tensor[Math.max(0, perSegment - 1)];
        for (int j = 0; j < t.length; j++) {
            t[j] = tensor("block output inside a segment", rows, hidden);
        }
        return t;
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
     * The recomputation must reproduce the forward (segment 0's recomputed output against checkpoint 1, relative
     * 1e-6: the same kernels on the same input), and sampled rows of the output and the input gradient of sum(output)
     * must match float64.
     */
    @Override
    public Optional<String> correctnessProblem() {
        float[] recomputedOut = recomputedFirstSegmentOutput.toFloats();
        float[] checkpoint1 = checkpoints.get(1).toFloats();
        double diff = Reference.relL2(recomputedOut, Reference.doubles(checkpoint1));
        if (!(diff <= 1e-6)) {
            return Optional.of(NAME + ": the recomputed output of segment 0 differs from the forward's checkpoint by "
                    + "relative L2 " + diff + " (expected <= 1e-6: recomputation must reproduce the forward)");
        }
        float[] out = checkpoints.getLast().toFloats();
        float[] din = inputGradient.toFloats();
        float[] gotOut = new float[SAMPLED_ROWS * hidden];
        float[] gotDin = new float[SAMPLED_ROWS * hidden];
        double[] wantOut = new double[SAMPLED_ROWS * hidden];
        double[] wantDin = new double[SAMPLED_ROWS * hidden];
        for (int j = 0; j < SAMPLED_ROWS; j++) {
            int r = (int) ((long) (rows - 1) * j / (SAMPLED_ROWS - 1));
            double[] x = Reference.doubles(Arrays.copyOfRange(hostInput, r * hidden, (r + 1) * hidden));
            List<double[]> inputs = new ArrayList<>();
            for (ResidualMlp[] b : blocks) {
                inputs.add(x);
                x = b[0].referenceForward(x);
            }
            double[] dy = new double[hidden];
            Arrays.fill(dy, 1.0);
            for (int b = blocks.size() - 1; b >= 0; b--) {
                dy = blocks.get(b)[2].referenceBackward(inputs.get(b), dy);
            }
            System.arraycopy(x, 0, wantOut, j * hidden, hidden);
            System.arraycopy(dy, 0, wantDin, j * hidden, hidden);
            System.arraycopy(out, r * hidden, gotOut, j * hidden, hidden);
            System.arraycopy(din, r * hidden, gotDin, j * hidden, hidden);
        }
        return Reference.compare(NAME + " output (" + SAMPLED_ROWS + " sampled rows)", gotOut, wantOut)
                .or(() -> Reference.compare(NAME + " input gradient (" + SAMPLED_ROWS + " sampled rows)", gotDin, wantDin));
    }
}
