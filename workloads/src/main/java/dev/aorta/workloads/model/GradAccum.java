package dev.aorta.workloads.model;

import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Elementwise;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.reference.RefElementwise;
import dev.aorta.model.reference.RefLinear;
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
 * AORTA's grad_accum: an MLP 1024→2048→2048→1000 (ReLU) trained on {@code num_microbatches} microbatches whose
 * gradients accumulate before one reduction. Streams by halves: compute, reduce. Microbatch k runs forward and the
 * backward of sum(output) on compute stream k mod |compute|, each compute stream into its own gradients (AORTA's
 * shared the buffers across streams without ordering); a layer's gradients are reduced as soon as the last
 * microbatch of every compute stream has passed that layer's backward (the last layer first, overlapping the
 * remaining backward): the streams' gradients are summed and all-reduced (NCCL with several ranks, simulated copies
 * on one), bucket b on reduce stream b mod |reduce| (a parameter, or with more than six reduce streams a
 * weight's rows in buckets), so every stream of a role works.
 */
public final class GradAccum extends ModelWorkload {
    public static final String NAME = "grad_accum";
    private static final int[] DIMS = {1024, 2048, 2048, 1000};

    private ModelCollectives comm;
    private final List<Linear[]> replicas = new ArrayList<>();
    private final List<Tensor> reduced = new ArrayList<>();
    private float[] hostInput;
    private int microbatches;
    private int batch;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Gradient accumulation over microbatches on the compute streams, each layer's summed gradients "
                + "all-reduced on the reduce streams as soon as final (simulated on one GPU), every stream used";
    }

    @Override
    public Priority priority() {
        return Priority.P2;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(2, 16);
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
        return List.of(WorkloadParameter.growing("num_microbatches", 4, "microbatches per iteration (per step)",
                        "compute"),
                WorkloadParameter.positive("microbatch_size", "32", "rows per microbatch"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return streamIndex < streamCount / 2 ? "compute" : "reduce";
    }

    private int microbatches() {
        return growing("num_microbatches", 4, ctx.streamsWithRole("compute").size());
    }

    @Override
    protected void validate() {
        int microbatches = microbatches();
        int computeStreams = ctx.streamsWithRole("compute").size();
        if (microbatches < computeStreams) {
            throw new IllegalArgumentException(NAME + ": --param num_microbatches=" + microbatches + " leaves compute "
                    + "streams idle with " + computeStreams + " compute streams; use at least " + computeStreams);
        }
    }

    @Override
    protected void build() {
        microbatches = microbatches();
        batch = ctx.intParameter("microbatch_size");
        List<Integer> compute = ctx.streamsWithRole("compute");
        List<Integer> reduce = ctx.streamsWithRole("reduce");
        comm = keepOther(ModelCollectives.open(rt, ctx));
        int rows = microbatches * batch;
        hostInput = random(rows * DIMS[0], 29);
        Tensor input = keep(Tensor.of(rt.device(), NAME + " input", DType.FP32, hostInput, rows, DIMS[0]));
        float[] ones = new float[batch * DIMS[3]];
        Arrays.fill(ones, 1f);
        Tensor dOut = keep(Tensor.of(rt.device(), "d sum(output)", DType.FP32, ones, batch, DIMS[3]));
        for (int c : compute) {
            Linear[] mlp = new Linear[3];
            for (int l = 0; l < 3; l++) {
                // the same weights on every compute stream's handle (same names and seed)
                mlp[l] = keep(new Linear(rt.ops(c), "fc" + (l + 1), DIMS[l], DIMS[l + 1], true, 31));
            }
            replicas.add(mlp);
        }
        for (int l = 0; l < 3; l++) {
            ModelCollectives.requireUnits(NAME, "fc" + (l + 1) + " weight", (long) DIMS[l] * DIMS[l + 1]);
            reduced.add(tensor("all-reduced weight gradient", DIMS[l + 1], DIMS[l]));
            reduced.add(tensor("all-reduced bias gradient", DIMS[l + 1]));
        }
        GpuEvent[][] layerFinal = new GpuEvent[compute.size()][3];
        GpuEvent[] reduceDone = new GpuEvent[reduce.size()];
        for (int i = 0; i < compute.size(); i++) {
            for (int l = 0; l < 3; l++) {
                layerFinal[i][l] = event(compute.get(i));
            }
        }
        for (int i = 0; i < reduce.size(); i++) {
            reduceDone[i] = event(reduce.get(i));
        }
        // each compute stream: zero its gradients once the last iteration's reduction has read them
        for (int i = 0; i < compute.size(); i++) {
            int c = compute.get(i);
            for (GpuEvent e : reduceDone) {
                waitOn(c, e);
            }
            Linear[] mlp = replicas.get(i);
            iteration.add(() -> {
                for (Linear l : mlp) {
                    l.zeroGrad(cs(c));
                }
            });
        }
        Map<Integer, Tensor[]> scratch = new java.util.HashMap<>();
        for (int c : compute) {
            scratch.put(c, new Tensor[] {tensor("h1 pre", batch, DIMS[1]), tensor("h1", batch, DIMS[1]),
                    tensor("h2 pre", batch, DIMS[2]), tensor("h2", batch, DIMS[2]), tensor("out", batch, DIMS[3]),
                    tensor("d h2", batch, DIMS[2]), tensor("d h2 pre", batch, DIMS[2]), tensor("d h1", batch, DIMS[1]),
                    tensor("d h1 pre", batch, DIMS[1])});
        }
        for (int k = 0; k < microbatches; k++) {
            int i = k % compute.size();
            int c = compute.get(i);
            boolean last = k + compute.size() >= microbatches;
            Linear[] m = replicas.get(i);
            Tensor[] t = scratch.get(c);
            Tensor x = input.slice(0, k * batch, batch);
            Elementwise ew = new Elementwise(rt.ops(c));
            iteration.add(() -> {
                m[0].forward(x, t[0], cs(c));
                ew.relu(t[0], t[1], cs(c));
                m[1].forward(t[1], t[2], cs(c));
                ew.relu(t[2], t[3], cs(c));
                m[2].forward(t[3], t[4], cs(c));
                m[2].backward(t[3], dOut, t[5], cs(c));
            });
            if (last) {
                recordOn(c, layerFinal[i][2]);
            }
            iteration.add(() -> {
                ew.reluBackward(t[2], t[5], t[6], cs(c));
                m[1].backward(t[1], t[6], t[7], cs(c));
            });
            if (last) {
                recordOn(c, layerFinal[i][1]);
            }
            iteration.add(() -> {
                ew.reluBackward(t[0], t[7], t[8], cs(c));
                m[0].backward(x, t[8], null, cs(c));
            });
            if (last) {
                recordOn(c, layerFinal[i][0]);
            }
        }
        // reduce, last layer first, bucket b on reduce stream b mod |reduce|: a parameter is one bucket, and where there
        // are more reduce streams than the six parameters each weight is reduced in row buckets, so every stream works
        int weightBuckets = Math.max(1, (reduce.size() - 3 + 2) / 3);
        int b = 0;
        for (int l = 2; l >= 0; l--) {
            for (int part = 0; part < 2; part++) {
                int buckets = part == 0 ? weightBuckets : 1;
                int outputs = DIMS[l + 1];
                for (int k = 0; k < buckets; k++, b++) {
                    int ri = b % reduce.size();
                    int r = reduce.get(ri);
                    for (GpuEvent[] stream : layerFinal) {
                        waitOn(r, stream[l]);
                    }
                    int from = outputs * k / buckets;
                    int length = outputs * (k + 1) / buckets - from;
                    Tensor target = reduced.get(2 * l + part).slice(0, from, length);
                    Tensor[] grads = new Tensor[replicas.size()];
                    for (int i = 0; i < grads.length; i++) {
                        grads[i] = grad(replicas.get(i)[l], part).slice(0, from, length);
                    }
                    Elementwise ew = new Elementwise(rt.ops(r));
                    iteration.add(() -> {
                        for (int i = 1; i < grads.length; i++) {
                            ew.accumulate(grads[0], grads[i], cs(r));
                        }
                        comm.allReduce(grads[0], target, gs(r));
                    });
                    recordOn(r, reduceDone[ri]);
                }
            }
        }
    }

    private static Tensor grad(Linear l, int part) {
        return part == 0 ? l.weight().grad() : l.bias().grad();
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * microbatches * batch / (totalTimeMs / 1e3), "samples/s");
    }

    @Override
    public Map<String, Object> results(List<List<dev.aorta.core.event.DeviceActivity>> iterations, List<Long> ids) {
        return Map.of("collectives", comm.kind());
    }

    /** The all-reduced gradients of fc3 and fc1 against world size × the float64 gradient of sum(output) over every row. */
    @Override
    public Optional<String> correctnessProblem() {
        int rows = microbatches * batch;
        Linear[] m = replicas.getFirst();
        double[][] w = new double[3][];
        double[][] b = new double[3][];
        for (int l = 0; l < 3; l++) {
            w[l] = Reference.doubles(m[l].weight().value().toFloats());
            b[l] = Reference.doubles(m[l].bias().value().toFloats());
        }
        double[] x = Reference.doubles(hostInput);
        double[] p1 = RefLinear.forward(x, w[0], b[0], rows, DIMS[0], DIMS[1]);
        double[] h1 = RefElementwise.relu(p1);
        double[] p2 = RefLinear.forward(h1, w[1], b[1], rows, DIMS[1], DIMS[2]);
        double[] h2 = RefElementwise.relu(p2);
        double[] dy = new double[rows * DIMS[3]];
        Arrays.fill(dy, 1.0);
        RefLinear.Grads g3 = RefLinear.backward(h2, w[2], dy, rows, DIMS[2], DIMS[3]);
        RefLinear.Grads g2 = RefLinear.backward(h1, w[1], RefElementwise.reluBackward(p2, g3.dx()), rows, DIMS[1], DIMS[2]);
        RefLinear.Grads g1 = RefLinear.backward(x, w[0], RefElementwise.reluBackward(p1, g2.dx()), rows, DIMS[0], DIMS[1]);
        int world = comm.worldSize();
        return Reference.compare(NAME + " all-reduced fc3 weight gradient", reduced.get(4).toFloats(), times(g3.dw(), world))
                .or(() -> Reference.compare(NAME + " all-reduced fc3 bias gradient", reduced.get(5).toFloats(), times(g3.db(), world)))
                .or(() -> Reference.compare(NAME + " all-reduced fc1 weight gradient", reduced.get(0).toFloats(), times(g1.dw(), world)))
                .or(() -> Reference.compare(NAME + " all-reduced fc1 bias gradient", reduced.get(1).toFloats(), times(g1.db(), world)));
    }

    private static double[] times(double[] v, int k) {
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = v[i] * k;
        }
        return r;
    }
}
