package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.EmbeddingMeanPool;
import dev.aorta.model.ops.Linear;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AORTA's speculative_decode with KV caches and a measured acceptance: a draft model (token embedding, 4 decoder
 * layers of 256, LM head) proposes K tokens greedily, one forward per token reading its KV cache; the main model
 * (12 layers of 1024) verifies them in one forward over the K tokens reading its cache; the accepted prefix plus
 * the main model's next token are the tokens produced, counted on the device (AORTA assumed 70% acceptance and
 * re-ran the draft over the whole sequence for every token). Each iteration is one speculation round from the
 * prompt: the cache streams prefill both models' caches with the context (the caches have no rollback of rejected
 * positions, so a round starts from the prompt). Stream i has role draft, verify, accept, cache by i mod 4; request
 * r uses stream r mod |role| of each role, so every stream works. With random weights the models rarely agree.
 *
 * <p>Host-launch-bound (about 500 small launches per request and round), so with {@code graphs=true} (the default)
 * each request's work on each stream is one CUDA graph launch: the draft prefill and the main prefill (cache
 * stream), the K − 1 draft steps (draft stream), the verify forward (verify stream); the accept kernel is one launch
 * either way. Because a round starts from the prompt, no step depends on the accepted count: every forward runs at
 * the same positions every round, so each graph holds exactly the eager launches (the host-side cache lengths are
 * set at the start of each piece of work, so that it can be run again and captured). The accepted count is only
 * summed on the device; nothing the next round does depends on it.
 */
public final class SpeculativeDecode extends ModelWorkload {
    public static final String NAME = "speculative_decode";
    private static final String[] ROLES = {"draft", "verify", "accept", "cache"};
    /** The same kernels at the same positions: only a GEMM algorithm chosen otherwise under capture could differ. */
    private static final double REPLAY_TOLERANCE = 1e-6;

    /** One model's layers on one stream's handle (every replica has the same weights: same names and seeds). */
    private record LanguageModel(EmbeddingMeanPool embedding, CachedDecoder decoder, Linear head) {
        static LanguageModel on(OpContext ops, String name, int vocab, int dim, int layers, int heads, long seed) {
            return new LanguageModel(new EmbeddingMeanPool(ops, name + ".embed", vocab, dim, seed),
                    new CachedDecoder(ops, name + ".layer", layers, dim, heads, true, seed),
                    new Linear(ops, name + ".lm_head", dim, vocab, true, seed));
        }

    }

    /**
     * One request's tensors, its models on the draft and verify streams, and its round as work per stream in
     * dependency order (run eagerly one after the other, with a synchronisation between, by the check).
     */
    private record Request(Tensor draftTokens, Tensor predicted, Tensor totals, Tensor verifyLogits,
                           LanguageModel draft, LanguageModel main, int draftStream, int verifyStream,
                           List<Runnable> round) {
    }

    private final List<Request> requests = new ArrayList<>();
    private final Map<String, LanguageModel> models = new HashMap<>();
    private int k;
    private int draftDim;
    private int mainDim;
    /** Rounds (iterations × requests) issued since the measured loop began. */
    private long rounds;
    /** Of the measured loop alone: its rounds, and the tokens produced and draft tokens accepted in them. */
    private long measuredRounds;
    private long producedTokens;
    private long acceptedTokens;
    private boolean graphs;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Draft model proposes K tokens through its KV cache, main model verifies them in one cached forward; "
                + "acceptance measured on the device (AORTA assumed 70%); each stream's work per request replayed as a "
                + "CUDA graph unless graphs=false";
    }

    @Override
    public Priority priority() {
        return Priority.P1;
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
        return List.of(WorkloadParameter.positive("vocab_size", "32000", "tokens of both models"),
                WorkloadParameter.positive("draft_hidden", "256", "draft model features"),
                WorkloadParameter.positive("draft_layers", "4", "draft model layers"),
                WorkloadParameter.positive("draft_heads", "4", "draft model heads"),
                WorkloadParameter.positive("main_hidden", "1024", "main model features"),
                WorkloadParameter.positive("main_layers", "12", "main model layers"),
                WorkloadParameter.positive("main_heads", "8", "main model heads"),
                WorkloadParameter.positive("num_speculative", "4", "draft tokens K per round"),
                WorkloadParameter.positive("context_len", "128", "prompt tokens"),
                WorkloadParameter.growing("batch_size", 2, "requests in flight (AORTA's own: 1; 2 so that the "
                        + "recommended 6 streams all work)", "role's"),
                WorkloadParameter.choice("graphs", "true", "true: each request's prefills, draft steps and verify "
                        + "replayed as CUDA graphs (one launch per stream and request); false: every kernel launched",
                        "true", "false"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return ROLES[streamIndex % 4];
    }

    /** Requests in flight: one per stream of a role at least (roles take every fourth stream). */
    private int batch() {
        return growing("batch_size", 2, (ctx.streams().size() + 3) / 4);
    }

    @Override
    protected void validate() {
        int batch = batch();
        int lanes = (ctx.streams().size() + 3) / 4;
        if (batch < lanes) {
            throw new IllegalArgumentException(NAME + ": --param batch_size=" + batch + " leaves streams idle with "
                    + ctx.streams().size() + " streams (" + lanes + " per role); use at least " + lanes + " requests");
        }
        if (ctx.intParameter("num_speculative") > ctx.intParameter("context_len")) {
            throw new IllegalArgumentException(NAME + ": --param num_speculative=" + ctx.intParameter("num_speculative")
                    + " is more than context_len=" + ctx.intParameter("context_len"));
        }
    }

    @Override
    protected void build() {
        int vocab = ctx.intParameter("vocab_size");
        draftDim = ctx.intParameter("draft_hidden");
        mainDim = ctx.intParameter("main_hidden");
        k = ctx.intParameter("num_speculative");
        int context = ctx.intParameter("context_len");
        int batch = batch();
        graphs = Boolean.parseBoolean(ctx.choiceParameter("graphs"));
        CudaModule spec = keepOther(rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("spec.cu"),
                "spec.cu", rt.device().info().arch())));
        List<Integer> drafts = ctx.streamsWithRole("draft");
        List<Integer> verifies = ctx.streamsWithRole("verify");
        List<Integer> accepts = ctx.streamsWithRole("accept");
        List<Integer> caches = ctx.streamsWithRole("cache");
        int dLayers = ctx.intParameter("draft_layers");
        int dHeads = ctx.intParameter("draft_heads");
        int mLayers = ctx.intParameter("main_layers");
        int mHeads = ctx.intParameter("main_heads");
        for (int r = 0; r < batch; r++) {
            int d = drafts.get(r % drafts.size());
            int v = verifies.get(r % verifies.size());
            int a = accepts.get(r % accepts.size());
            int c = caches.get(r % caches.size());
            LanguageModel draftOnCache = model("draft", c, vocab, draftDim, dLayers, dHeads);
            LanguageModel draftOnDraft = model("draft", d, vocab, draftDim, dLayers, dHeads);
            LanguageModel mainOnCache = model("main", c, vocab, mainDim, mLayers, mHeads);
            LanguageModel mainOnVerify = model("main", v, vocab, mainDim, mLayers, mHeads);
            int[] prompt = new int[context];
            java.util.SplittableRandom random = new java.util.SplittableRandom(71 + r);
            for (int i = 0; i < context; i++) {
                prompt[i] = random.nextInt(vocab);
            }
            Tensor promptIds = keep(rt.ops(0).empty(NAME, "prompt ids", DType.I32, context, 1));
            promptIds.copyFrom(prompt);
            Tensor draftTokens = keep(rt.ops(0).empty(NAME, "draft tokens", DType.I32, k, 1));
            Tensor predicted = keep(rt.ops(0).empty(NAME, "main model predictions", DType.I32, k + 1));
            Tensor totals = keep(rt.ops(0).empty(NAME, "produced, accepted, last accepted", DType.I32, 3));
            totals.copyFrom(new int[3]);
            Tensor verifyLogits = tensor("verify logits", k, vocab);
            CachedDecoder.Cache draftCache = keepOther(draftOnCache.decoder().cache(1, context + k, context));
            CachedDecoder.Cache mainCache = keepOther(mainOnCache.decoder().cache(1, context + k, context));

            // each piece of work sets the host-side cache length it starts from, so that it can run again (captured)
            Runnable draftStep0 = step(draftOnCache, draftCache, promptIds, context, draftDim, 1,
                    tensor("logits", 1, vocab), draftTokens.slice(0, 0, 1), spec, c);
            Runnable draftPrefill = () -> {
                draftCache.reset();
                draftStep0.run();
            };
            Runnable mainStep0 = step(mainOnCache, mainCache, promptIds, context, mainDim, 1,
                    tensor("logits", 1, vocab), predicted.slice(0, 0, 1), spec, c);
            Runnable mainPrefill = () -> {
                mainCache.reset();
                mainStep0.run();
            };
            List<Runnable> nextTokens = new ArrayList<>();
            for (int i = 1; i < k; i++) {
                nextTokens.add(step(draftOnDraft, draftCache, draftTokens.slice(0, i - 1, 1), 1, draftDim, 1,
                        tensor("logits", 1, vocab), draftTokens.slice(0, i, 1), spec, d));
            }
            Runnable draftSteps = () -> {
                draftCache.keepFirst(context);
                nextTokens.forEach(Runnable::run);
            };
            Runnable verifyStep = step(mainOnVerify, mainCache, draftTokens, k, mainDim, k, verifyLogits,
                    predicted.slice(0, 1, k), spec, v);
            Runnable verify = () -> {
                mainCache.keepFirst(context);
                verifyStep.run();
            };
            requests.add(new Request(draftTokens, predicted, totals, verifyLogits, draftOnDraft, mainOnVerify, d, v,
                    List.of(draftPrefill, mainPrefill, draftSteps, verify)));

            GpuEvent draftPrefilled = event(c);
            GpuEvent mainPrefilled = event(c);
            GpuEvent draftDone = event(d);
            GpuEvent verifyDone = event(v);
            GpuEvent acceptDone = event(a);
            // cache stream: a new round starts from the prompt once the last round has finished with the caches
            waitOn(c, draftDone);
            waitOn(c, verifyDone);
            waitOn(c, acceptDone);
            scheduleWork(draftPrefill, c, graphs);
            recordOn(c, draftPrefilled);
            scheduleWork(mainPrefill, c, graphs);
            recordOn(c, mainPrefilled);
            // draft stream: K - 1 more greedy tokens, each one forward of one position through the cache
            waitOn(d, draftPrefilled);
            scheduleWork(draftSteps, d, graphs);
            recordOn(d, draftDone);
            // verify stream: the main model over the K draft tokens at once, predictions after each
            waitOn(v, draftDone);
            waitOn(v, mainPrefilled);
            scheduleWork(verify, v, graphs);
            recordOn(v, verifyDone);
            // accept stream: the accepted prefix, counted on the device
            waitOn(a, verifyDone);
            KernelLaunch accept = spec.kernel("spec_accept").prepare(1, 32, cs(a), 4).pointer(0, draftTokens.address())
                    .pointer(1, predicted.address()).intArg(2, k).pointer(3, totals.address());
            iteration.add(accept::launch);
            recordOn(a, acceptDone);
        }
        ctx.gpu().synchronize();
    }

    private LanguageModel model(String which, int stream, int vocab, int dim, int layers, int heads) {
        return models.computeIfAbsent(which + "@" + stream, key -> {
            LanguageModel m = LanguageModel.on(rt.ops(stream), which, vocab, dim, layers, heads, which.equals("draft")
                    ? 73 : 79);
            keep(m.embedding());
            keep(m.decoder());
            keep(m.head());
            return m;
        });
    }

    /**
     * One forward: embed {@code positions} ids, run them through the cache, {@code logits} [picks, vocab] and the
     * greedy tokens of the last {@code picks}.
     */
    private Runnable step(LanguageModel m, CachedDecoder.Cache cache, Tensor ids, int positions, int dim, int picks,
                          Tensor logits, Tensor out, CudaModule spec, int stream) {
        int vocab = logits.dim(1);
        Tensor x = tensor("embedded", positions, dim);
        Tensor h = tensor("hidden", 1, positions, dim);
        Tensor last = h.view(positions, dim).slice(0, positions - picks, picks);
        Stream s = cs(stream);
        KernelLaunch argmax = spec.kernel("argmax_rows").prepare(picks, 256, s, 3).pointer(0, logits.address())
                .intArg(1, vocab).pointer(2, out.address());
        return () -> {
            m.embedding().forward(ids, x, s);
            m.decoder().forward(x.view(1, positions, dim), h, cache, s);
            m.head().forward(last, logits, s);
            argmax.launch();
        };
    }

    @Override
    public void runIteration(int i) {
        rounds += requests.size();
        super.runIteration(i);
    }

    @Override
    public void beforeMeasuredIterations() {
        ctx.gpu().synchronize();
        for (Request r : requests) {
            r.totals().copyFrom(new int[3]);
        }
        rounds = 0;
    }

    /** The measured rounds' totals, before the check and the traced iterations add rounds of their own. */
    @Override
    public void afterMeasuredIterations() {
        measuredRounds = rounds;
        producedTokens = sum(0);
        acceptedTokens = sum(1);
    }

    /** Tokens produced: the accepted draft tokens plus one main-model token per round, counted on the device. */
    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(producedTokens / (totalTimeMs / 1e3), "tokens/s");
    }

    private long sum(int index) {
        long total = 0;
        for (Request r : requests) {
            total += r.totals().toHost().toInts()[index];
        }
        return total;
    }

    @Override
    public Map<String, Object> results(List<List<dev.aorta.core.event.DeviceActivity>> iterations, List<Long> ids) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rounds", measuredRounds);
        r.put("tokens_per_round", measuredRounds == 0 ? null : (double) producedTokens / measuredRounds);
        r.put("acceptance_rate", measuredRounds == 0 ? null : (double) acceptedTokens / (measuredRounds * k));
        r.put("acceptance_note", "measured: accepted draft tokens / (rounds x K), greedy on both models; AORTA "
                + "assumed 0.7");
        return r;
    }

    /**
     * Both models' decoders fed a sequence as a prefill and one cached decode step against float64, and the last
     * round's acceptance of request 0 against the draft tokens and predictions read back; with graphs also the
     * replayed round's verify logits (which depend on every graph of the round: the draft tokens from the draft
     * prefill and steps, the main cache from the main prefill) against the same round run eagerly (relative L2
     * 1e-6: the same kernels at the same positions).
     */
    @Override
    public Optional<String> correctnessProblem() {
        Request r = requests.getFirst();
        int[] draft = r.draftTokens().toHost().toInts();
        int[] predicted = r.predicted().toHost().toInts();
        int accepted = 0;
        while (accepted < k && draft[accepted] == predicted[accepted]) {
            accepted++;
        }
        int counted = r.totals().toHost().toInts()[2];
        if (counted != accepted) {
            return Optional.of(NAME + ": the last round accepted " + counted + " draft tokens on the device, but its "
                    + "draft tokens and the main model's predictions give " + accepted);
        }
        if (graphs) {
            float[] replayed = r.verifyLogits().toFloats();
            for (Runnable work : r.round()) {
                work.run();
                ctx.gpu().synchronize();
            }
            double error = Reference.relL2(replayed, Reference.doubles(r.verifyLogits().toFloats()));
            if (!(error <= REPLAY_TOLERANCE)) {
                return Optional.of(NAME + ": the verify logits of the last round, replayed as CUDA graphs, differ from "
                        + "the same round run eagerly by a relative L2 error of " + error + " (tolerance "
                        + REPLAY_TOLERANCE + ")");
            }
        }
        return DecoderCheck.prefillThenDecode(NAME + " draft decoder", rt, r.draft().decoder(), cs(r.draftStream()),
                draftDim, 8, 83).or(() -> DecoderCheck.prefillThenDecode(NAME + " main decoder", rt, r.main().decoder(),
                cs(r.verifyStream()), mainDim, 6, 89));
    }
}
