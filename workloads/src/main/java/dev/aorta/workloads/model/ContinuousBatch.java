package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.LayerNorm;
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
 * AORTA's continuous_batch with a decode that reads its KV cache (AORTA's never did): decoder layers (pre-norm
 * causal self-attention with a KV cache, residual; hidden 1024, 8 heads). Streams by thirds: {@code prefill} runs
 * new requests' prompts (prefill_batch × prefill_len tokens, requests split over the prefill streams);
 * {@code decode} generates one token for each of decode_batch running sequences from their caches (sequences split
 * over the decode streams; the caches hold context_len prompt positions, prefilled at setup, plus the generated
 * ones; a decode stream whose caches are full starts a new batch by prefilling the context again); {@code sample}
 * turns each decoded output into the next step's input (a final LayerNorm standing in for sampling and embedding;
 * AORTA's third role multiplied a cache slice). Throughput counts AORTA's tokens: prefill tokens + one per
 * decoded sequence.
 *
 * <p>Host-launch-bound (hundreds of small launches per iteration), so the decoder runs fused ops (bias and residual
 * in the projections' cuBLASLt epilogues, q/k/v layout and cache append in one kernel) and, with
 * {@code graphs=true} (the default), every prefill and decode step is one CUDA graph launch. A prefill always
 * starts a new request at position 0 with the same shapes: its graph holds exactly the eager launches. A decode
 * step's position changes every step, so its graph reads the position from device memory and attends over all
 * cache slots, those after the position masked to probability 0 (the same result; the score GEMMs span maxT
 * rather than the cached length, a few MFLOP per step); the context prefill that starts a new batch stays eager.
 */
public final class ContinuousBatch extends ModelWorkload {
    public static final String NAME = "continuous_batch";
    private static final int CHECK_LEN = 12;

    private record Lane(int stream, CachedDecoder decoder, CachedDecoder.Cache cache, Tensor input, Tensor output) {
    }

    private final List<Lane> decodeLanes = new ArrayList<>();
    private int hidden;
    private int tokensPerIteration;
    private boolean graphs;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Prefill of new requests beside one-token decode steps that read the KV cache (AORTA's decode never "
                + "did), outputs fed back by the sample streams; every stream of a role used; prefill and decode "
                + "steps replayed as CUDA graphs unless graphs=false";
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
        return 8;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.HIGH;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("num_layers", "8", "decoder layers"),
                WorkloadParameter.positive("hidden_size", "1024", "features"),
                WorkloadParameter.positive("num_heads", "8", "attention heads"),
                WorkloadParameter.growing("prefill_batch", 2, "new requests prefilled per iteration", "prefill"),
                WorkloadParameter.positive("prefill_len", "512", "prompt tokens per new request"),
                WorkloadParameter.positive("decode_batch", "16", "running sequences, one token each per iteration"),
                WorkloadParameter.positive("context_len", "512", "prompt positions in a running sequence's cache"),
                WorkloadParameter.positive("max_new_tokens", "512", "generated positions a cache holds before its "
                        + "decode stream starts a new batch"),
                WorkloadParameter.choice("graphs", "true", "true: each prefill and each decode step replayed as one "
                        + "CUDA graph (decode at a position read from device memory); false: every kernel launched",
                        "true", "false"));
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        int t = Math.max(1, streamCount / 3);
        return streamIndex < t ? "prefill" : streamIndex < 2 * t ? "decode" : "sample";
    }

    @Override
    protected void validate() {
        int hidden = ctx.intParameter("hidden_size");
        int heads = ctx.intParameter("num_heads");
        if (hidden % heads != 0) {
            throw new IllegalArgumentException(NAME + ": --param hidden_size=" + hidden + " does not split into num_heads="
                    + heads + " heads");
        }
        require(prefillBatch(), "prefill_batch", ctx.streamsWithRole("prefill").size(), "prefill");
        require(ctx.intParameter("decode_batch"), "decode_batch", Math.max(ctx.streamsWithRole("decode").size(),
                ctx.streamsWithRole("sample").size()), "decode and sample");
    }

    @Override
    protected void build() {
        int layers = ctx.intParameter("num_layers");
        hidden = ctx.intParameter("hidden_size");
        int heads = ctx.intParameter("num_heads");
        int prefillBatch = prefillBatch();
        int prefillLen = ctx.intParameter("prefill_len");
        int decodeBatch = ctx.intParameter("decode_batch");
        int contextLen = ctx.intParameter("context_len");
        int maxT = contextLen + ctx.intParameter("max_new_tokens");
        List<Integer> prefill = ctx.streamsWithRole("prefill");
        List<Integer> decode = ctx.streamsWithRole("decode");
        List<Integer> sample = ctx.streamsWithRole("sample");
        graphs = Boolean.parseBoolean(ctx.choiceParameter("graphs"));
        tokensPerIteration = prefillBatch * prefillLen + decodeBatch;
        Tensor prompts = keep(Tensor.of(rt.device(), "prompts", DType.FP32, random(prefillBatch * prefillLen * hidden, 47),
                prefillBatch, prefillLen, hidden));
        Tensor contexts = keep(Tensor.of(rt.device(), "running contexts", DType.FP32,
                random(decodeBatch * contextLen * hidden, 53), decodeBatch, contextLen, hidden));
        Tensor next = keep(Tensor.of(rt.device(), "next decode input", DType.FP32, random(decodeBatch * hidden, 59),
                decodeBatch, 1, hidden));
        Tensor decoded = tensor("decoded", decodeBatch, 1, hidden);
        for (int i = 0; i < prefill.size(); i++) {
            int s = prefill.get(i);
            int from = split(prefillBatch, i, prefill.size());
            int n = split(prefillBatch, i + 1, prefill.size()) - from;
            CachedDecoder decoder = keep(new CachedDecoder(rt.ops(s), "layer", layers, hidden, heads, false, 61));
            CachedDecoder.Cache cache = keepOther(decoder.cache(n, prefillLen, prefillLen));
            Tensor in = prompts.slice(0, from, n);
            Tensor out = tensor("prefill output", n, prefillLen, hidden);
            Stream cs = cs(s);
            Runnable prefillRequest = () -> {
                cache.reset(); // a new request every iteration
                decoder.forward(in, out, cache, cs);
            };
            if (graphs) {
                CudaGraph graph = captured(prefillRequest, cs);
                iteration.add(() -> graph.launch(cs));
            } else {
                iteration.add(prefillRequest);
            }
        }
        List<GpuEvent> decodedEvents = new ArrayList<>();
        List<GpuEvent> sampledEvents = new ArrayList<>();
        for (int s : decode) {
            decodedEvents.add(event(s));
        }
        for (int s : sample) {
            sampledEvents.add(event(s));
        }
        for (int i = 0; i < decode.size(); i++) {
            int s = decode.get(i);
            int from = split(decodeBatch, i, decode.size());
            int n = split(decodeBatch, i + 1, decode.size()) - from;
            CachedDecoder decoder = keep(new CachedDecoder(rt.ops(s), "layer", layers, hidden, heads, false, 61));
            CachedDecoder.Cache cache = keepOther(decoder.cache(n, maxT, contextLen));
            Tensor context = contexts.slice(0, from, n);
            Tensor contextOut = tensor("context prefill output", n, contextLen, hidden);
            Tensor in = next.slice(0, from, n);
            Tensor out = decoded.slice(0, from, n);
            Stream cs = cs(s);
            if (graphs) {
                cache.keepPositionOnDevice(cs);
            }
            decoder.forward(context, contextOut, cache, cs); // the running sequences' prompts, before the run
            decodeLanes.add(new Lane(s, decoder, cache, in, out));
            for (GpuEvent e : sampledEvents) {
                waitOn(s, e);
            }
            Runnable newBatchWhenFull = () -> {
                if (cache.length() == cache.maxT) {
                    cache.reset(); // these sequences are done: a new batch joins with its prompts
                    decoder.forward(context, contextOut, cache, cs);
                }
            };
            if (graphs) {
                // captured() runs the step once eagerly before capturing it: one position appended
                CudaGraph step = captured(() -> decoder.forwardAtDevicePosition(in, out, cache, cs), cs);
                cache.advanced(1);
                iteration.add(() -> {
                    newBatchWhenFull.run();
                    step.launch(cs);
                    cache.advanced(1);
                });
            } else {
                iteration.add(() -> {
                    newBatchWhenFull.run();
                    decoder.forward(in, out, cache, cs);
                });
            }
            recordOn(s, decodedEvents.get(i));
        }
        for (int i = 0; i < sample.size(); i++) {
            int s = sample.get(i);
            int from = split(decodeBatch, i, sample.size());
            int n = split(decodeBatch, i + 1, sample.size()) - from;
            LayerNorm norm = keep(new LayerNorm(rt.ops(s), "final_ln", hidden, 1e-5f));
            Tensor in = decoded.slice(0, from, n);
            Tensor out = next.slice(0, from, n);
            Tensor mean = tensor("mean", n);
            Tensor rstd = tensor("rstd", n);
            for (GpuEvent e : decodedEvents) {
                waitOn(s, e);
            }
            Stream cs = cs(s);
            iteration.add(() -> norm.forward(in, out, mean, rstd, cs));
            recordOn(s, sampledEvents.get(i));
        }
        ctx.gpu().synchronize();
    }

    private int prefillBatch() {
        return growing("prefill_batch", 2, ctx.streamsWithRole("prefill").size());
    }

    private void require(int count, String param, int streams, String role) {
        if (count < streams) {
            throw new IllegalArgumentException(NAME + ": --param " + param + "=" + count + " leaves " + role
                    + " streams idle with " + streams + " of them; use at least " + streams + " or fewer streams");
        }
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput((double) iterations * tokensPerIteration / (totalTimeMs / 1e3), "tokens/s");
    }

    /**
     * The decoder that ran decode, fed a fresh sequence of 12 positions as a prefill of 11 and one decode step that
     * reads the cache (with graphs, the step as the workload runs it: captured at the cache's device position and
     * replayed), against float64 of the whole sequence at once (every position).
     */
    @Override
    public Optional<String> correctnessProblem() {
        Lane lane = decodeLanes.getFirst();
        return graphs
                ? DecoderCheck.prefillThenReplayedDecode(NAME + " decoder", rt, lane.decoder(), cs(lane.stream()),
                        hidden, CHECK_LEN, 67)
                : DecoderCheck.prefillThenDecode(NAME + " decoder", rt, lane.decoder(), cs(lane.stream()), hidden,
                        CHECK_LEN, 67);
    }
}
