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
import dev.aorta.model.ops.TopKGating;
import dev.aorta.model.reference.RefEmbedding;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * AORTA's rag_pipeline: four stages by stream quarters, each waiting for the previous one (the pipeline is serial
 * within an iteration, as AORTA's): {@code embed} (mean of the query's token embeddings, MLP 768→512→256 with GELU,
 * L2 normalisation), {@code retrieve} (scores against the document embeddings, top 10), {@code rerank} (MLP
 * 512→256→1 over [query ‖ document] per retrieved document, top 3) and {@code generate} (the query's tokens and the
 * 3 documents' tokens through 4 decoder layers and the LM head, one forward). The queries are split over the
 * streams of each stage, so every stream works (AORTA ran each stage on the first stream of its quarter).
 *
 * <p>Host-launch-bound (134 launches per iteration at 8 streams), so with {@code graphs=true} (the default) each
 * stage's work on each of its streams is one CUDA graph launch: every stage has fixed shapes, and nothing crosses
 * the host — the retrieved and the reranked document ids stay in device memory, where the next stage's gather
 * kernels read them ({@code rerank_pairs} the retrieved documents' embeddings, {@code context_ids} their tokens) — so
 * each graph holds exactly the eager launches. The generator's host-side cache length is reset inside its work, so
 * that work can be run again and captured. The events that order the stages stay outside the graphs, between
 * graph launches; nothing else stays eager.
 */
public final class RagPipeline extends ModelWorkload {
    public static final String NAME = "rag_pipeline";
    private static final int BLOCK = 256;
    /** The same kernels on the same data: only a GEMM algorithm chosen otherwise under capture could differ. */
    private static final double REPLAY_TOLERANCE = 1e-6;

    private int batch;
    private int queryLen;
    private int embedDim;
    private int retrievalDim;
    private int numDocs;
    private int topK;
    private int[] queryIds;
    private EmbeddingMeanPool firstEncoderTable;
    private Linear[] firstEncoder;
    private Linear firstDocs;
    private Tensor queryEmbedding;
    private Tensor retrieved;
    private CachedDecoder firstGenerator;
    private int generatorStream;
    private Tensor firstGeneratorOutput;
    private boolean graphs;
    /** Every stage's work on every stream, in dependency order (run eagerly one after the other by the check). */
    private final List<Runnable> stageWork = new ArrayList<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Retrieval-augmented generation: embed, retrieve, rerank and generate stages on their stream quarters, "
                + "queries split over every stream of a stage; each stage's work per stream replayed as a CUDA graph "
                + "unless graphs=false";
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
        return 8;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.growing("batch_size", 4, "queries per iteration", "stage's"),
                WorkloadParameter.positive("query_len", "64", "tokens per query"),
                WorkloadParameter.positive("embed_dim", "768", "token embedding and generator width"),
                WorkloadParameter.positive("retrieval_dim", "256", "query and document embedding width"),
                WorkloadParameter.positive("num_docs", "100", "documents in the index"),
                new WorkloadParameter("top_k", "10", "documents retrieved per query", 1, TopKGating.MAX_K),
                new WorkloadParameter("rerank_k", "3", "documents kept after reranking", 1, TopKGating.MAX_K),
                WorkloadParameter.positive("doc_len", "64", "tokens per document given to the generator"),
                WorkloadParameter.positive("num_layers", "4", "generator layers"),
                WorkloadParameter.positive("num_heads", "12", "generator heads"),
                WorkloadParameter.positive("vocab_size", "32000", "tokens"),
                WorkloadParameter.choice("graphs", "true", "true: each stage's work on each of its streams replayed "
                        + "as one CUDA graph (document ids stay on the device); false: every kernel launched", "true",
                        "false"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int q = Math.max(1, streamCount / 4);
        return streamIndex < q ? "embed" : streamIndex < 2 * q ? "retrieve" : streamIndex < 3 * q ? "rerank"
                : "generate";
    }

    /** Queries per iteration: by default one per stream of the largest stage at least. */
    private int batch() {
        return growing("batch_size", 4, mostPerStage());
    }

    private int mostPerStage() {
        int most = 0;
        for (String role : List.of("embed", "retrieve", "rerank", "generate")) {
            most = Math.max(most, ctx.streamsWithRole(role).size());
        }
        return most;
    }

    @Override
    protected void validate() {
        int batch = batch();
        int numDocs = ctx.intParameter("num_docs");
        int topK = ctx.intParameter("top_k");
        int rerankK = ctx.intParameter("rerank_k");
        if (topK > numDocs || rerankK > topK) {
            throw new IllegalArgumentException(NAME + ": need rerank_k <= top_k <= num_docs; got " + rerankK + ", "
                    + topK + ", " + numDocs);
        }
        if (ctx.intParameter("embed_dim") % ctx.intParameter("num_heads") != 0) {
            throw new IllegalArgumentException(NAME + ": --param embed_dim=" + ctx.intParameter("embed_dim")
                    + " does not split into num_heads=" + ctx.intParameter("num_heads") + " heads");
        }
        int most = mostPerStage();
        if (batch < most) {
            throw new IllegalArgumentException(NAME + ": --param batch_size=" + batch + " leaves streams idle with "
                    + ctx.streams().size() + " streams (up to " + most + " per stage); use at least " + most + " queries");
        }
    }

    @Override
    protected void build() {
        batch = batch();
        queryLen = ctx.intParameter("query_len");
        embedDim = ctx.intParameter("embed_dim");
        retrievalDim = ctx.intParameter("retrieval_dim");
        numDocs = ctx.intParameter("num_docs");
        topK = ctx.intParameter("top_k");
        int rerankK = ctx.intParameter("rerank_k");
        int docLen = ctx.intParameter("doc_len");
        int layers = ctx.intParameter("num_layers");
        int heads = ctx.intParameter("num_heads");
        int vocab = ctx.intParameter("vocab_size");
        graphs = Boolean.parseBoolean(ctx.choiceParameter("graphs"));
        List<List<Integer>> stages = List.of(ctx.streamsWithRole("embed"), ctx.streamsWithRole("retrieve"),
                ctx.streamsWithRole("rerank"), ctx.streamsWithRole("generate"));
        CudaModule rag = keepOther(rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("rag.cu"),
                "rag.cu", rt.device().info().arch())));
        java.util.SplittableRandom random = new java.util.SplittableRandom(107);
        queryIds = new int[batch * queryLen];
        Arrays.setAll(queryIds, i -> random.nextInt(vocab));
        int[] docTokenIds = new int[numDocs * docLen];
        Arrays.setAll(docTokenIds, i -> random.nextInt(vocab));
        Tensor qIds = keep(rt.ops(0).empty(NAME, "query token ids", DType.I32, batch, queryLen));
        qIds.copyFrom(queryIds);
        Tensor docTokens = keep(rt.ops(0).empty(NAME, "document token ids", DType.I32, numDocs, docLen));
        docTokens.copyFrom(docTokenIds);
        queryEmbedding = tensor("query embeddings", batch, retrievalDim);
        retrieved = keep(rt.ops(0).empty(NAME, "retrieved documents", DType.I32, batch, topK));
        Tensor retrievalGates = tensor("retrieval weights", batch, topK);
        Tensor chosen = keep(rt.ops(0).empty(NAME, "reranked choice", DType.I32, batch, rerankK));
        Tensor chosenGates = tensor("rerank weights", batch, rerankK);
        int contextLen = queryLen + rerankK * docLen;
        Tensor contextIds = keep(rt.ops(0).empty(NAME, "generator token ids", DType.I32, batch * contextLen, 1));

        List<List<GpuEvent>> done = new ArrayList<>();
        for (int st = 0; st < 4; st++) {
            List<GpuEvent> events = new ArrayList<>();
            for (int s : stages.get(st)) {
                events.add(event(s));
            }
            done.add(events);
        }
        for (int st = 0; st < 4; st++) {
            List<Integer> streams = stages.get(st);
            for (int i = 0; i < streams.size(); i++) {
                int s = streams.get(i);
                int from = split(batch, i, streams.size());
                int n = split(batch, i + 1, streams.size()) - from;
                if (st > 0) {
                    done.get(st - 1).forEach(e -> waitOn(s, e)); // this iteration's previous stage
                }
                if (st < 3) {
                    done.get(st + 1).forEach(e -> waitOn(s, e)); // last iteration's next stage has read our output
                }
                OpContext ops = rt.ops(s);
                Stream cs = cs(s);
                switch (st) {
                    case 0 -> {
                        EmbeddingMeanPool table = keep(new EmbeddingMeanPool(ops, "encoder.embed", vocab, embedDim, 109));
                        Linear fc1 = keep(new Linear(ops, "encoder.fc1", embedDim, 512, true, 109));
                        Linear fc2 = keep(new Linear(ops, "encoder.fc2", 512, retrievalDim, true, 109));
                        if (i == 0) {
                            firstEncoderTable = table;
                            firstEncoder = new Linear[] {fc1, fc2};
                        }
                        Tensor ids = qIds.slice(0, from, n);
                        Tensor pooled = tensor("pooled query", n, embedDim);
                        Tensor pre = tensor("encoder pre-activation", n, 512);
                        Tensor h = tensor("encoder hidden", n, 512);
                        Tensor out = queryEmbedding.slice(0, from, n);
                        KernelLaunch normalize = rag.kernel("l2_normalize_rows").prepare((n + 3) / 4, 128, cs, 3)
                                .pointer(0, out.address()).intArg(1, n).intArg(2, retrievalDim);
                        schedule(() -> {
                            table.forward(ids, pooled, cs);
                            fc1.forwardGelu(pooled, pre, h, cs);
                            fc2.forward(h, out, cs);
                            normalize.launch();
                        }, s);
                    }
                    case 1 -> {
                        // the document index: a Linear without bias whose weight rows are the document embeddings
                        Linear docs = keep(new Linear(ops, "index.docs", retrievalDim, numDocs, false, 113));
                        if (i == 0) {
                            firstDocs = docs;
                        }
                        TopKGating top = new TopKGating(ops);
                        Tensor q = queryEmbedding.slice(0, from, n);
                        Tensor scores = tensor("retrieval scores", n, numDocs);
                        Tensor ids = retrieved.slice(0, from, n);
                        Tensor gates = retrievalGates.slice(0, from, n);
                        schedule(() -> {
                            docs.forward(q, scores, cs);
                            top.forward(scores, ids, gates, cs);
                        }, s);
                    }
                    case 2 -> {
                        Linear docs = keep(new Linear(ops, "index.docs", retrievalDim, numDocs, false, 113));
                        Linear fc1 = keep(new Linear(ops, "reranker.fc1", 2 * retrievalDim, 256, true, 127));
                        Linear fc2 = keep(new Linear(ops, "reranker.fc2", 256, 1, true, 127));
                        TopKGating top = new TopKGating(ops);
                        Tensor pairs = tensor("query-document pairs", n * topK, 2 * retrievalDim);
                        Tensor pre = tensor("reranker pre-activation", n * topK, 256);
                        Tensor h = tensor("reranker hidden", n * topK, 256);
                        Tensor scores = tensor("rerank scores", n * topK, 1);
                        Tensor ids = chosen.slice(0, from, n);
                        Tensor gates = chosenGates.slice(0, from, n);
                        KernelLaunch pair = rag.kernel("rerank_pairs").prepare(grid((long) n * topK * 2 * retrievalDim),
                                BLOCK, cs, 7).pointer(0, queryEmbedding.slice(0, from, n).address())
                                .pointer(1, docs.weight().value().address())
                                .pointer(2, retrieved.slice(0, from, n).address()).pointer(3, pairs.address())
                                .intArg(4, n).intArg(5, topK).intArg(6, retrievalDim);
                        schedule(() -> {
                            pair.launch();
                            fc1.forwardGelu(pairs, pre, h, cs);
                            fc2.forward(h, scores, cs);
                            top.forward(scores.view(n, topK), ids, gates, cs);
                        }, s);
                    }
                    default -> {
                        EmbeddingMeanPool table = keep(new EmbeddingMeanPool(ops, "generator.embed", vocab, embedDim,
                                131));
                        CachedDecoder generator = keep(new CachedDecoder(ops, "generator.layer", layers, embedDim, heads,
                                true, 131));
                        Linear head = keep(new Linear(ops, "generator.lm_head", embedDim, vocab, true, 131));
                        CachedDecoder.Cache cache = keepOther(generator.cache(n, contextLen, contextLen));
                        Tensor ids = contextIds.slice(0, from * contextLen, n * contextLen);
                        Tensor x = tensor("generator input", n * contextLen, embedDim);
                        Tensor h = tensor("generator output", n, contextLen, embedDim);
                        if (i == 0) {
                            firstGenerator = generator;
                            generatorStream = s;
                            firstGeneratorOutput = h;
                        }
                        Tensor logits = tensor("logits", n * contextLen, vocab);
                        KernelLaunch gather = rag.kernel("context_ids").prepare(grid((long) n * contextLen), BLOCK, cs, 10)
                                .pointer(0, qIds.slice(0, from, n).address()).pointer(1, docTokens.address())
                                .pointer(2, retrieved.slice(0, from, n).address())
                                .pointer(3, chosen.slice(0, from, n).address()).pointer(4, ids.address()).intArg(5, n)
                                .intArg(6, queryLen).intArg(7, topK).intArg(8, rerankK).intArg(9, docLen);
                        schedule(() -> {
                            gather.launch();
                            table.forward(ids, x, cs);
                            cache.reset(); // one forward over each query's whole context
                            generator.forward(x.view(n, contextLen, embedDim), h, cache, cs);
                            head.forward(h.view(n * contextLen, embedDim), logits, cs);
                        }, s);
                    }
                }
                recordOn(s, done.get(st).get(i));
            }
        }
    }

    /**
     * Schedules {@code work} on {@code stream} ({@link #scheduleWork}: the stages are built in dependency order, so
     * the document ids an eager run gathers by are already the previous stage's) and keeps it for the check.
     */
    private void schedule(Runnable work, int stream) {
        stageWork.add(work);
        scheduleWork(work, stream, graphs);
    }

    private static int grid(long n) {
        return (int) Math.max(1, Math.min(8192, (n + BLOCK - 1) / BLOCK));
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * batch / (totalTimeMs / 1e3), "queries/s");
    }

    /**
     * The query embeddings against float64; the retrieved documents are the float64 top k (a document whose score is
     * within 1e-4 of the k-th best counts as a near-tie either way); with graphs, the first generator stream's output
     * of the last replayed iteration (which depends on every stage's graphs: the context is the query and the
     * reranked documents' tokens) against every stage run eagerly (relative L2 1e-6: the same kernels on the same
     * data); the generator's decoder on a prefill and one cached step against float64.
     */
    @Override
    public Optional<String> correctnessProblem() {
        double[] pooled = RefEmbedding.forward(Reference.doubles(firstEncoderTable.parameters().getFirst().value()
                .toFloats()), queryIds, batch, queryLen, embedDim);
        double[] h = Reference.linear(pooled, firstEncoder[0].weight().value().toFloats(),
                firstEncoder[0].bias().value().toFloats(), batch, embedDim, 512, true);
        double[] q = Reference.linear(h, firstEncoder[1].weight().value().toFloats(),
                firstEncoder[1].bias().value().toFloats(), batch, 512, retrievalDim, false);
        for (int b = 0; b < batch; b++) {
            double norm = 0;
            for (int i = 0; i < retrievalDim; i++) {
                norm += q[b * retrievalDim + i] * q[b * retrievalDim + i];
            }
            norm = Math.max(Math.sqrt(norm), 1e-12);
            for (int i = 0; i < retrievalDim; i++) {
                q[b * retrievalDim + i] /= norm;
            }
        }
        Optional<String> embedding = Reference.compare(NAME + " query embeddings", queryEmbedding.toFloats(), q);
        if (embedding.isPresent()) {
            return embedding;
        }
        double[] scores = Reference.linear(q, firstDocs.weight().value().toFloats(), new float[numDocs], batch,
                retrievalDim, numDocs, false);
        int[] got = retrieved.toHost().toInts();
        for (int b = 0; b < batch; b++) {
            double[] row = Arrays.copyOfRange(scores, b * numDocs, (b + 1) * numDocs);
            double[] sorted = row.clone();
            Arrays.sort(sorted);
            double kth = sorted[numDocs - topK];
            for (int j = 0; j < topK; j++) {
                int doc = got[b * topK + j];
                if (doc < 0 || doc >= numDocs || row[doc] < kth - 1e-4) {
                    return Optional.of(NAME + ": query " + b + " retrieved document " + doc + " (score "
                            + (doc < 0 || doc >= numDocs ? "none" : row[doc]) + "), not among the float64 top " + topK
                            + " (k-th score " + kth + ")");
                }
            }
        }
        if (graphs) {
            float[] replayed = firstGeneratorOutput.toFloats();
            for (Runnable work : stageWork) {
                work.run();
                ctx.gpu().synchronize();
            }
            double error = Reference.relL2(replayed, Reference.doubles(firstGeneratorOutput.toFloats()));
            if (!(error <= REPLAY_TOLERANCE)) {
                return Optional.of(NAME + ": the generator output of the last iteration, replayed as CUDA graphs, "
                        + "differs from every stage run eagerly by a relative L2 error of " + error + " (tolerance "
                        + REPLAY_TOLERANCE + ")");
            }
        }
        return DecoderCheck.prefillThenDecode(NAME + " generator", rt, firstGenerator, cs(generatorStream), embedDim, 8,
                137);
    }
}
