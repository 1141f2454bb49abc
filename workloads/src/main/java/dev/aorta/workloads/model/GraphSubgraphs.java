package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Linear;
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
 * AORTA's graph_subgraphs: independent MLP subgraphs (Linear in→hidden, activation, hidden→hidden, activation,
 * hidden→out) fan out from an input stream and join on an aggregator (concatenation, Linear subgraphs·out→out).
 * Stream 0 stages the input, subgraph i runs on stream 1 + i mod (n − 2), the last stream aggregates. With
 * {@code -p mode=graph} the whole fan-out/fan-in is captured once as a CUDA graph and each iteration is one graph
 * launch; {@code eager} (AORTA's, which never captures despite the name) launches every op. The activation is the
 * model module's fused GELU where AORTA has ReLU; the output is checked against a float64 reference.
 */
public final class GraphSubgraphs extends ModelWorkload {
    public static final String NAME = "graph_subgraphs";

    private final List<Linear> linears = new ArrayList<>();
    private CudaGraph graph;
    private Stream origin;
    private Tensor output;
    private float[] hostInput;
    private int batch;
    private int in;
    private int hidden;
    private int out;
    private int subgraphs;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Independent MLP subgraphs fan out from an input stream and join on an aggregator, launched eagerly "
                + "or as one CUDA graph";
    }

    @Override
    public Priority priority() {
        return Priority.P2;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(4, 32);
    }

    @Override
    public int recommendedStreams() {
        return 8;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.growing("num_subgraphs", 8, "independent subgraphs", "subgraph"),
                WorkloadParameter.positive("input_size", "1024", "input features"),
                WorkloadParameter.positive("hidden_size", "2048", "hidden features of each subgraph"),
                WorkloadParameter.positive("output_size", "512", "output features of each subgraph and of the aggregator"),
                WorkloadParameter.positive("batch_size", "32", "rows per iteration"),
                WorkloadParameter.choice("mode", "eager", "eager: every op launched; graph: one CUDA graph launch "
                        + "per iteration", "eager", "graph"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return streamIndex == 0 ? "input" : streamIndex == streamCount - 1 ? "aggregator" : "subgraph";
    }

    /** A subgraph count given that leaves subgraph streams idle is refused, as the other workloads' counts are. */
    @Override
    protected void validate() {
        int given = ctx.intParameter("num_subgraphs");
        int streams = ctx.streamsWithRole("subgraph").size();
        if (given > 0 && given < streams) {
            throw new IllegalArgumentException(NAME + ": --param num_subgraphs=" + given + " leaves subgraph streams"
                    + " idle with " + streams + " of them; use at least " + streams + " or fewer streams");
        }
    }

    @Override
    protected void build() {
        ColumnCopy columns = keepOther(new ColumnCopy(rt));
        subgraphs = growing("num_subgraphs", 8, ctx.streamsWithRole("subgraph").size());
        in = ctx.intParameter("input_size");
        hidden = ctx.intParameter("hidden_size");
        out = ctx.intParameter("output_size");
        batch = ctx.intParameter("batch_size");
        int n = ctx.streams().size();
        origin = cs(0);

        hostInput = random(batch * in, 42);
        Tensor staged = keep(Tensor.of(rt.device(), "graph_subgraphs input", DType.FP32, hostInput, batch, in));
        Tensor input = tensor("input", batch, in);
        Tensor cat = tensor("concatenation", batch, subgraphs * out);
        output = tensor("output", batch, out);

        // the input stage (stream 0) copies the staged batch into the input every iteration, then forks
        KernelLaunch stage = columns.prepare(staged, input, 0, origin);
        iteration.add(stage::launch);
        GpuEvent forked = event(0);
        recordOn(0, forked);
        boolean[] joined = new boolean[n];
        for (int g = 0; g < subgraphs; g++) {
            int s = 1 + g % (n - 2);
            Stream stream = cs(s);
            if (!joined[s]) {
                joined[s] = true;
                waitOn(s, forked);
            }
            Linear fc1 = layer(s, "subgraph" + g + ".fc1", in, hidden);
            Linear fc2 = layer(s, "subgraph" + g + ".fc2", hidden, hidden);
            Linear fc3 = layer(s, "subgraph" + g + ".fc3", hidden, out);
            Tensor pre1 = tensor("pre1", batch, hidden);
            Tensor h1 = tensor("h1", batch, hidden);
            Tensor pre2 = tensor("pre2", batch, hidden);
            Tensor h2 = tensor("h2", batch, hidden);
            Tensor o = tensor("subgraph output", batch, out);
            KernelLaunch place = columns.prepare(o, cat, g * out, stream);
            iteration.add(() -> fc1.forwardGelu(input, pre1, h1, stream));
            iteration.add(() -> fc2.forwardGelu(h1, pre2, h2, stream));
            iteration.add(() -> fc3.forward(h2, o, stream));
            iteration.add(place::launch);
        }
        List<GpuEvent> done = new ArrayList<>();
        for (int s = 1; s < n - 1; s++) {
            if (joined[s]) {
                GpuEvent e = event(s);
                recordOn(s, e);
                done.add(e);
            }
        }
        for (GpuEvent e : done) {
            waitOn(n - 1, e);
        }
        Linear agg = layer(n - 1, "aggregator", subgraphs * out, out);
        Stream aggregatorStream = cs(n - 1);
        iteration.add(() -> agg.forward(cat, output, aggregatorStream));
        // join back into stream 0: a graph capture must end where it began, with every forked stream joined
        GpuEvent finished = event(n - 1);
        recordOn(n - 1, finished);
        waitOn(0, finished);
        if (ctx.choiceParameter("mode").equals("graph")) {
            // once eagerly first: kernels are compiled and loaded on first use, which a capture must not see
            iteration.forEach(Runnable::run);
            ctx.gpu().synchronize();
            origin.beginCapture();
            iteration.forEach(Runnable::run);
            graph = keepOther(origin.endCapture());
        }
    }

    /** A layer that runs on harness stream {@code stream}, with that stream's ops. */
    private Linear layer(int stream, String name, int fanIn, int fanOut) {
        Linear l = keep(new Linear(rt.ops(stream), name, fanIn, fanOut, true, 7));
        linears.add(l);
        return l;
    }

    @Override
    public void runIteration(int i) {
        if (graph != null) {
            graph.launch(origin);
        } else {
            super.runIteration(i);
        }
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "samples/s");
    }

    /** The aggregator's output against float64: every subgraph and the aggregator from the same weights. */
    @Override
    public Optional<String> correctnessProblem() {
        double[] x = Reference.doubles(hostInput);
        double[] cat = new double[batch * subgraphs * out];
        for (int g = 0; g < subgraphs; g++) {
            Linear fc1 = linears.get(3 * g);
            Linear fc2 = linears.get(3 * g + 1);
            Linear fc3 = linears.get(3 * g + 2);
            double[] h1 = Reference.linear(x, fc1.weight().value().toFloats(), fc1.bias().value().toFloats(), batch, in,
                    hidden, true);
            double[] h2 = Reference.linear(h1, fc2.weight().value().toFloats(), fc2.bias().value().toFloats(), batch,
                    hidden, hidden, true);
            double[] o = Reference.linear(h2, fc3.weight().value().toFloats(), fc3.bias().value().toFloats(), batch,
                    hidden, out, false);
            for (int r = 0; r < batch; r++) {
                System.arraycopy(o, r * out, cat, r * subgraphs * out + g * out, out);
            }
        }
        Linear agg = linears.getLast();
        double[] want = Reference.linear(cat, agg.weight().value().toFloats(), agg.bias().value().toFloats(), batch,
                subgraphs * out, out, false);
        return Reference.compare("graph_subgraphs output", output.toFloats(), want);
    }

    @Override
    public void cleanup() {
        graph = null;
        linears.clear();
        super.cleanup();
    }
}
