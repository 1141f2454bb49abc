package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.LayerNorm;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.reference.RefLayerNorm;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * AORTA's torch_compile: three regions (LayerNorm, Linear h→4h with GELU, Linear 4h→h, residual) in the order
 * A → (B ∥ C) → merge (Linear 2h→h over the concatenation of B and C). AORTA's version never compiled (and called
 * torch.gelu, which does not exist); its mode "reduce-overhead" means CUDA graphs, so here {@code graphs=true}
 * captures each region's work on each of its streams as a CUDA graph, launched once per iteration, and
 * {@code graphs=false} launches every op. Streams by quarters: region_a, region_b, region_c, merge; the rows are
 * split between the streams of a role, so every stream works. Checked against float64 on sampled rows.
 */
public final class TorchCompile extends ModelWorkload {
    public static final String NAME = "torch_compile";
    private static final float EPS = 1e-5f;
    private static final int REFERENCE_ROWS = 6;

    /** One region's layers and scratch on one stream, for a block of rows. */
    private record Part(int stream, int firstRow, int rows, LayerNorm norm, Linear fc1, Linear fc2, List<Runnable> ops) {
    }

    private ColumnCopy columns;
    private final List<Part> regionA = new ArrayList<>();
    private final List<Part> regionB = new ArrayList<>();
    private final List<Part> regionC = new ArrayList<>();
    private final List<Linear> merges = new ArrayList<>();
    private float[] hostInput;
    private Tensor merged;
    private int hidden;
    private int rows;
    private int batch;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Three compiled regions A -> (B || C) -> merge, each captured as CUDA graphs (reduce-overhead) or "
                + "launched op by op";
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
        return 8;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.MEDIUM;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("hidden_size", "1024", "features h (the MLP is h -> 4h -> h)"),
                WorkloadParameter.positive("batch_size", "16", "sequences per iteration"),
                WorkloadParameter.positive("seq_len", "256", "rows per sequence"),
                WorkloadParameter.choice("graphs", "true", "true: every region part is one CUDA graph launch "
                        + "(torch.compile mode reduce-overhead); false: op by op", "true", "false"));
    }

    /** AORTA's quarters, q = max(1, n/4): region_a, region_b, region_c, then merge for the rest. */
    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int q = Math.max(1, streamCount / 4);
        return streamIndex < q ? "region_a" : streamIndex < 2 * q ? "region_b" : streamIndex < 3 * q ? "region_c"
                : "merge";
    }

    /** Any size is meaningful; rows are split between the streams of a role. */
    @Override
    protected void validate() {
    }

    @Override
    protected void build() {
        columns = keepOther(new ColumnCopy(rt));
        hidden = ctx.intParameter("hidden_size");
        batch = ctx.intParameter("batch_size");
        rows = batch * ctx.intParameter("seq_len");
        hostInput = random(rows * hidden, 3);
        Tensor x = keep(Tensor.of(rt.device(), "torch_compile input", DType.FP32, hostInput, rows, hidden));
        Tensor a = tensor("region A output", rows, hidden);
        Tensor cat = tensor("B and C concatenated", rows, 2 * hidden);
        merged = tensor("merge output", rows, hidden);
        Tensor b = tensor("region B output", rows, hidden);
        Tensor c = tensor("region C output", rows, hidden);

        List<Integer> aStreams = ctx.streamsWithRole("region_a");
        List<Integer> bStreams = ctx.streamsWithRole("region_b");
        List<Integer> cStreams = ctx.streamsWithRole("region_c");
        List<Integer> mStreams = ctx.streamsWithRole("merge");
        for (int k = 0; k < aStreams.size(); k++) {
            regionA.add(part("region_a", aStreams.get(k), k, aStreams.size(), x, a, null, 0));
        }
        for (int k = 0; k < bStreams.size(); k++) {
            regionB.add(part("region_b", bStreams.get(k), k, bStreams.size(), a, b, cat, 0));
        }
        for (int k = 0; k < cStreams.size(); k++) {
            regionC.add(part("region_c", cStreams.get(k), k, cStreams.size(), a, c, cat, hidden));
        }
        List<Part> mergeParts = new ArrayList<>();
        for (int k = 0; k < mStreams.size(); k++) {
            int s = mStreams.get(k);
            int from = split(rows, k, mStreams.size());
            int len = split(rows, k + 1, mStreams.size()) - from;
            Linear merge = keep(new Linear(rt.ops(s), "merge", 2 * hidden, hidden, true, 11));
            merges.add(merge);
            Tensor in = cat.slice(0, from, len);
            Tensor out = merged.slice(0, from, len);
            Stream stream = rt.stream(s);
            mergeParts.add(new Part(s, from, len, null, merge, null, List.of(() -> merge.forward(in, out, stream))));
        }

        // A reads x and writes a, which B and C read; B and C write cat, which the merge reads: each waits for
        // what it reads to be written and for what it overwrites to be read (iterations may follow back to back)
        List<GpuEvent> aDone = eventsFor(regionA);
        List<GpuEvent> bcDone = eventsFor(concat(regionB, regionC));
        List<GpuEvent> mDone = eventsFor(mergeParts);
        boolean graphed = ctx.choiceParameter("graphs").equals("true");
        if (graphed) {
            // once eagerly first, part after part: kernels are compiled and loaded on first use, which a capture
            // must not see
            for (Part p : concat(concat(regionA, regionB), concat(regionC, mergeParts))) {
                p.ops().forEach(Runnable::run);
                ctx.gpu().synchronize();
            }
        }
        schedule(regionA, List.of(bcDone), aDone, graphed);
        schedule(concat(regionB, regionC), List.of(aDone, mDone), bcDone, graphed);
        schedule(mergeParts, List.of(bcDone), mDone, graphed);
    }

    private Part part(String region, int s, int k, int parts, Tensor in, Tensor out, Tensor cat, int catOffset) {
        OpContext ops = rt.ops(s);
        Stream stream = rt.stream(s);
        int from = split(rows, k, parts);
        int len = split(rows, k + 1, parts) - from;
        // every part of a region has the region's weights (same names and seed), on its own stream's handle
        LayerNorm norm = keep(new LayerNorm(ops, region + ".ln", hidden, EPS));
        Linear fc1 = keep(new Linear(ops, region + ".fc1", hidden, 4 * hidden, true, 11));
        Linear fc2 = keep(new Linear(ops, region + ".fc2", 4 * hidden, hidden, true, 11));
        Elementwise elementwise = new Elementwise(ops);
        Tensor xs = in.slice(0, from, len);
        Tensor ys = out.slice(0, from, len);
        Tensor normed = keep(ops.empty(NAME, "normed", DType.FP32, len, hidden));
        Tensor mean = keep(ops.empty(NAME, "mean", DType.FP32, len));
        Tensor rstd = keep(ops.empty(NAME, "rstd", DType.FP32, len));
        Tensor pre = keep(ops.empty(NAME, "pre", DType.FP32, len, 4 * hidden));
        Tensor act = keep(ops.empty(NAME, "activation", DType.FP32, len, 4 * hidden));
        Tensor down = keep(ops.empty(NAME, "down", DType.FP32, len, hidden));
        List<Runnable> steps = new ArrayList<>(List.of(
                () -> norm.forward(xs, normed, mean, rstd, stream),
                () -> fc1.forwardGelu(normed, pre, act, stream),
                () -> fc2.forward(act, down, stream),
                () -> elementwise.residualAdd(xs, down, ys, stream)));
        if (cat != null) {
            KernelLaunch place = columns.prepare(ys, cat.slice(0, from, len), catOffset, stream);
            steps.add(place::launch);
        }
        return new Part(s, from, len, norm, fc1, fc2, List.copyOf(steps));
    }

    /** Each part waits for {@code waits}, runs (or launches its graph), then marks its own event of {@code done}. */
    private void schedule(List<Part> parts, List<List<GpuEvent>> waits, List<GpuEvent> done, boolean graphed) {
        for (int i = 0; i < parts.size(); i++) {
            Part p = parts.get(i);
            for (List<GpuEvent> group : waits) {
                for (GpuEvent e : group) {
                    waitOn(p.stream(), e);
                }
            }
            if (graphed) {
                Stream s = rt.stream(p.stream());
                s.beginCapture();
                p.ops().forEach(Runnable::run);
                CudaGraph graph = keepOther(s.endCapture());
                iteration.add(() -> graph.launch(s));
            } else {
                iteration.addAll(p.ops());
            }
            recordOn(p.stream(), done.get(i));
        }
    }

    /** One event per part, recorded once on its stream, so that the first iteration's waits are met. */
    private List<GpuEvent> eventsFor(List<Part> parts) {
        List<GpuEvent> list = new ArrayList<>();
        for (Part p : parts) {
            list.add(event(p.stream()));
        }
        return list;
    }

    private static List<Part> concat(List<Part> x, List<Part> y) {
        List<Part> all = new ArrayList<>(x);
        all.addAll(y);
        return all;
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "samples/s");
    }

    /** The merge output of sampled rows (rows are independent through every layer) against float64. */
    @Override
    public Optional<String> correctnessProblem() {
        float[] got = merged.toFloats();
        int sampled = Math.min(REFERENCE_ROWS, rows);
        float[] gotRows = new float[sampled * hidden];
        double[] want = new double[sampled * hidden];
        Linear merge = merges.getFirst();
        float[] wm = merge.weight().value().toFloats();
        float[] bm = merge.bias().value().toFloats();
        for (int j = 0; j < sampled; j++) {
            int r = (int) ((long) (rows - 1) * j / Math.max(1, sampled - 1));
            double[] x = new double[hidden];
            for (int i = 0; i < hidden; i++) {
                x[i] = hostInput[r * hidden + i];
            }
            double[] a = block(regionA.getFirst(), x);
            double[] bc = new double[2 * hidden];
            System.arraycopy(block(regionB.getFirst(), a), 0, bc, 0, hidden);
            System.arraycopy(block(regionC.getFirst(), a), 0, bc, hidden, hidden);
            System.arraycopy(Reference.linear(bc, wm, bm, 1, 2 * hidden, hidden, false), 0, want, j * hidden, hidden);
            System.arraycopy(got, r * hidden, gotRows, j * hidden, hidden);
        }
        return Reference.compare("torch_compile merge output (" + sampled + " sampled rows)", gotRows, want);
    }

    /** One region on one row: x + fc2(gelu(fc1(layernorm(x)))). */
    private double[] block(Part p, double[] x) {
        double[] normed = RefLayerNorm.forward(x, Reference.doubles(p.norm().parameters().get(0).value().toFloats()),
                Reference.doubles(p.norm().parameters().get(1).value().toFloats()), 1, hidden, EPS);
        double[] act = Reference.linear(normed, p.fc1().weight().value().toFloats(), p.fc1().bias().value().toFloats(),
                1, hidden, 4 * hidden, true);
        double[] down = Reference.linear(act, p.fc2().weight().value().toFloats(), p.fc2().bias().value().toFloats(),
                1, 4 * hidden, hidden, false);
        double[] y = new double[hidden];
        for (int i = 0; i < hidden; i++) {
            y[i] = x[i] + down[i];
        }
        return y;
    }

    @Override
    public void cleanup() {
        merges.clear();
        regionA.clear();
        regionB.clear();
        regionC.clear();
        columns = null;
        super.cleanup();
    }
}
