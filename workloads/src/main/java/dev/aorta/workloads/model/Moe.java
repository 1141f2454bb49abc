package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Linear;
import dev.aorta.model.ops.TopKGating;
import dev.aorta.model.reference.RefLinear;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AORTA's moe with real routing: stream 0 ({@code gating}) runs the gate (Linear h→experts, top-k with
 * renormalisation), routes each token to its k experts with a fixed capacity per expert (GShard's rule: slots in
 * token order, the rest dropped), dispatches the routed rows expert-major and exchanges them with an all-to-all (NCCL
 * over the ranks, each owning experts/world experts; a simulated copy on one GPU); every other stream
 * ({@code expert}) runs expert blocks (Linear h→inner, GELU, Linear inner→h, no bias) on only the rows routed to it;
 * the outputs go back by all-to-all and stream 0 combines them with the gates. AORTA's ran every expert densely over
 * every token and had no all-to-all. When there are more expert streams than experts, each expert's rows are split
 * so that every stream works.
 */
public final class Moe extends ModelWorkload {
    public static final String NAME = "moe";
    private static final int BLOCK = 256;
    private static final int SAMPLED_TOKENS = 6;
    /** Every expert's weights come from this seed and their names ("expert3.fc1.weight"), on whichever rank. */
    private static final long EXPERT_SEED = 43;

    private ModelCollectives comm;
    private Linear gate;
    private final Map<Integer, Linear[]> expertsByKey = new HashMap<>();
    private Tensor experts;
    private Tensor gates;
    private Tensor slotOf;
    private Tensor output;
    private float[] hostInput;
    private int hidden;
    private int inner;
    private int numExperts;
    private int topK;
    private int tokens;
    private int capacity;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Mixture of experts with top-k routing, per-expert capacity and all-to-all dispatch (simulated on one "
                + "GPU); experts compute only their routed tokens, on every expert stream";
    }

    @Override
    public Priority priority() {
        return Priority.P1;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(4, 32);
    }

    @Override
    public int recommendedStreams() {
        return 16;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.CRITICAL;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("num_experts", "8", "experts"),
                WorkloadParameter.positive("hidden_size", "1024", "token features h"),
                WorkloadParameter.positive("intermediate_size", "4096", "expert inner size"),
                new WorkloadParameter("top_k", "2", "experts per token", 1, TopKGating.MAX_K),
                WorkloadParameter.positive("batch_size", "4", "sequences"),
                WorkloadParameter.positive("seq_len", "512", "tokens per sequence"),
                WorkloadParameter.positive("capacity_factor_pct", "200", "expert capacity in % of the even share "
                        + "top_k * tokens / experts (GShard's capacity factor x 100)"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return streamIndex == 0 ? "gating" : "expert";
    }

    @Override
    protected void validate() {
        if (ctx.intParameter("top_k") > ctx.intParameter("num_experts")) {
            throw new IllegalArgumentException(NAME + ": --param top_k=" + ctx.intParameter("top_k")
                    + " is more than num_experts=" + ctx.intParameter("num_experts"));
        }
    }

    @Override
    protected void build() {
        numExperts = ctx.intParameter("num_experts");
        hidden = ctx.intParameter("hidden_size");
        inner = ctx.intParameter("intermediate_size");
        topK = ctx.intParameter("top_k");
        tokens = ctx.intParameter("batch_size") * ctx.intParameter("seq_len");
        capacity = (int) Math.min(tokens, Math.ceil((double) topK * tokens / numExperts
                * ctx.intParameter("capacity_factor_pct") / 100.0));
        comm = keepOther(ModelCollectives.open(rt, ctx));
        int world = comm.worldSize();
        if (numExperts % world != 0) {
            throw new IllegalArgumentException(NAME + ": --param num_experts=" + numExperts + " does not split over "
                    + world + " ranks");
        }
        ModelCollectives.requireUnits(NAME, "an expert's block of rows", (long) capacity * hidden * numExperts / world);
        CudaModule moe = keepOther(rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("moe.cu"), "moe.cu",
                rt.device().info().arch())));
        hostInput = random(tokens * hidden, 37);
        Tensor x = keep(Tensor.of(rt.device(), NAME + " tokens", DType.FP32, hostInput, tokens, hidden));
        gate = keep(new Linear(rt.ops(0), "gate", hidden, numExperts, true, 41));
        TopKGating gating = new TopKGating(rt.ops(0));
        Tensor logits = tensor("gate logits", tokens, numExperts);
        experts = keep(rt.ops(0).empty(NAME, "chosen experts", DType.I32, tokens, topK));
        gates = tensor("gates", tokens, topK);
        slotOf = keep(rt.ops(0).empty(NAME, "slot of each choice", DType.I32, tokens * topK));
        Tensor tokenOf = keep(rt.ops(0).empty(NAME, "token of each slot", DType.I32, numExperts * capacity));
        Tensor dispatched = tensor("dispatched rows", numExperts * capacity, hidden);
        Tensor received = tensor("rows received for this rank's experts", numExperts * capacity, hidden);
        Tensor expertOut = tensor("expert outputs", numExperts * capacity, hidden);
        Tensor returned = tensor("expert outputs returned", numExperts * capacity, hidden);
        output = tensor("moe output", tokens, hidden);
        long slots = (long) numExperts * capacity;
        KernelLaunch route = moe.kernel("moe_route").prepare(numExperts, 32, cs(0), 6).pointer(0, experts.address())
                .pointer(1, slotOf.address()).pointer(2, tokenOf.address()).intArg(3, tokens).intArg(4, topK)
                .intArg(5, capacity);
        KernelLaunch dispatch = moe.kernel("moe_dispatch").prepare(grid(slots * hidden), BLOCK, cs(0), 5)
                .pointer(0, x.address()).pointer(1, tokenOf.address()).pointer(2, dispatched.address())
                .longArg(3, slots).intArg(4, hidden);
        KernelLaunch combine = moe.kernel("moe_combine").prepare(grid((long) tokens * hidden), BLOCK, cs(0), 9)
                .pointer(0, returned.address()).pointer(1, experts.address()).pointer(2, slotOf.address())
                .pointer(3, gates.address()).pointer(4, output.address()).intArg(5, tokens).intArg(6, topK)
                .intArg(7, capacity).intArg(8, hidden);

        List<Integer> expertStreams = ctx.streamsWithRole("expert");
        int splits = (expertStreams.size() + numExperts - 1) / numExperts;
        int items = numExperts * splits;
        GpuEvent received0 = event(0);
        GpuEvent combined = event(0);
        List<GpuEvent> itemDone = new ArrayList<>();
        GpuEvent previousCombine = combined;
        iteration.add(() -> {
            gate.forward(x, logits, cs(0));
            gating.forward(logits, experts, gates, cs(0));
            route.launch();
            dispatch.launch();
        });
        iteration.add(() -> comm.allToAll(dispatched, received, gs(0)));
        recordOn(0, received0);
        int localExperts = numExperts / world;
        for (int i = 0; i < items; i++) {
            int s = expertStreams.get(i % expertStreams.size());
            int block = i / splits;
            int part = i % splits;
            int globalExpert = comm.rank() * localExperts + block % localExperts;
            int from = block * capacity + split(capacity, part, splits);
            int len = split(capacity, part + 1, splits) - split(capacity, part, splits);
            if (len == 0) {
                continue;
            }
            Linear[] mlp = expertsByKey.computeIfAbsent(s * numExperts + globalExpert, key -> new Linear[] {
                    keep(new Linear(rt.ops(s), "expert" + globalExpert + ".fc1", hidden, inner, false, EXPERT_SEED)),
                    keep(new Linear(rt.ops(s), "expert" + globalExpert + ".fc2", inner, hidden, false, EXPERT_SEED))});
            Tensor rows = received.slice(0, from, len);
            Tensor out = expertOut.slice(0, from, len);
            Tensor pre = tensor("expert pre-activation", len, inner);
            Tensor act = tensor("expert activation", len, inner);
            GpuEvent done = event(s);
            itemDone.add(done);
            waitOn(s, received0);
            waitOn(s, previousCombine); // last iteration's return all-to-all has read expertOut
            iteration.add(() -> {
                mlp[0].forwardGelu(rows, pre, act, cs(s));
                mlp[1].forward(act, out, cs(s));
            });
            recordOn(s, done);
        }
        for (GpuEvent e : itemDone) {
            waitOn(0, e);
        }
        iteration.add(() -> {
            comm.allToAll(expertOut, returned, gs(0));
            combine.launch();
        });
        recordOn(0, combined);
    }

    private static int grid(long n) {
        return (int) Math.max(1, Math.min(8192, (n + BLOCK - 1) / BLOCK));
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * tokens / (totalTimeMs / 1e3), "tokens/s");
    }

    @Override
    public Map<String, Object> results(List<List<dev.aorta.core.event.DeviceActivity>> iterations, List<Long> ids) {
        Map<String, Object> r = new java.util.LinkedHashMap<>();
        r.put("collectives", comm.kind());
        r.put("expert_capacity", capacity);
        return r;
    }

    /**
     * The routing (every slot against a host recomputation from the chosen experts), the choice (the chosen experts'
     * float64 logits are the top k, up to 1e-4 for near-ties) and sampled tokens' outputs against float64.
     */
    @Override
    public Optional<String> correctnessProblem() {
        int[] chosen = experts.toHost().toInts();
        int[] slots = slotOf.toHost().toInts();
        int[] load = new int[numExperts];
        for (int i = 0; i < tokens * topK; i++) {
            int e = chosen[i];
            int want = load[e] < capacity ? load[e] : -1;
            load[e]++;
            if (slots[i] != want) {
                return Optional.of(NAME + ": token " + i / topK + " choice " + i % topK + " got slot " + slots[i]
                        + " of expert " + e + ", expected " + want + " (slots in token order, capacity " + capacity + ")");
            }
        }
        double[] wg = Reference.doubles(gate.weight().value().toFloats());
        double[] bg = Reference.doubles(gate.bias().value().toFloats());
        float[] got = output.toFloats();
        float[] gotRows = new float[SAMPLED_TOKENS * hidden];
        double[] want = new double[SAMPLED_TOKENS * hidden];
        for (int j = 0; j < SAMPLED_TOKENS; j++) {
            int t = (int) ((long) (tokens - 1) * j / (SAMPLED_TOKENS - 1));
            double[] x = Reference.doubles(Arrays.copyOfRange(hostInput, t * hidden, (t + 1) * hidden));
            double[] logits = RefLinear.forward(x, wg, bg, 1, hidden, numExperts);
            double[] sorted = logits.clone();
            Arrays.sort(sorted);
            double kth = sorted[numExperts - topK];
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < topK; c++) {
                double l = logits[chosen[t * topK + c]];
                if (l < kth - 1e-4 * (1 + Math.abs(kth))) {
                    return Optional.of(NAME + ": token " + t + " chose expert " + chosen[t * topK + c] + " whose logit "
                            + l + " is not among the top " + topK + " (k-th largest " + kth + ")");
                }
                max = Math.max(max, l);
            }
            double sum = 0;
            double[] g = new double[topK];
            for (int c = 0; c < topK; c++) {
                g[c] = Math.exp(logits[chosen[t * topK + c]] - max);
                sum += g[c];
            }
            for (int c = 0; c < topK; c++) {
                if (slots[t * topK + c] < 0) {
                    continue;
                }
                double[] y = expert(chosen[t * topK + c], x);
                for (int i = 0; i < hidden; i++) {
                    want[j * hidden + i] += g[c] / sum * y[i];
                }
            }
            System.arraycopy(got, t * hidden, gotRows, j * hidden, hidden);
        }
        return Reference.compare(NAME + " output (" + SAMPLED_TOKENS + " sampled tokens)", gotRows, want);
    }

    /**
     * Expert e's MLP on x in float64, with the weights it was built with: regenerated on the host from their seed and
     * names, since under expert parallelism most experts live on other ranks.
     */
    private double[] expert(int e, double[] x) {
        String name = "expert" + e;
        float[] w1 = Init.uniform(EXPERT_SEED, name + ".fc1.weight", Init.linearBound(hidden), inner, hidden).toFloats();
        float[] w2 = Init.uniform(EXPERT_SEED, name + ".fc2.weight", Init.linearBound(inner), hidden, inner).toFloats();
        double[] h = Reference.linear(x, w1, new float[inner], 1, hidden, inner, true);
        return Reference.linear(h, w2, new float[hidden], 1, inner, hidden, false);
    }
}
