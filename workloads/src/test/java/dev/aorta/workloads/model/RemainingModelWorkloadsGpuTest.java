package dev.aorta.workloads.model;

import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessions;
import dev.aorta.workloads.session.GpuUnavailableException;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15's second-part workloads on a real GPU at small, odd sizes and at their recommended stream counts: each
 * passes its own check against float64 and every stream it claims has device work. Skipped, with the reason, without
 * a GPU.
 */
class RemainingModelWorkloadsGpuTest {

    private static GpuSession gpu() {
        try {
            return GpuSessions.open(0);
        } catch (GpuUnavailableException e) {
            Assumptions.abort("no GPU here: " + e.getMessage());
            return null;
        }
    }

    private static void runsCorrectlyOnEveryStream(Workload w, Map<String, String> params) {
        try (GpuSession gpu = gpu()) {
            RunResult r = new Harness(Map.of(), false).run(w, HarnessOptions.defaults(w.recommendedStreams())
                    .withIterations(3, 1).withParams(params), gpu);
            assertThat(r.correctness().problem()).as(w.name()).isNull();
            assertThat(r.throughput().value()).as(w.name()).isPositive();
            assertThat(r.streams()).allSatisfy(s -> assertThat(s.kernelCount()).as(w.name() + " stream " + s.index())
                    .isPositive());
            GpuTelemetryAssertions.assertRecordedBeforeAndAfter(r);
        }
    }

    @Test
    void fsdpTp() {
        runsCorrectlyOnEveryStream(new FsdpTp(), Map.of("num_layers", "3", "batch_size", "3", "seq_len", "7"));
    }

    /** AORTA's backward: the input gradient alone, no weight gradients and no gradient all-reduce. */
    @Test
    void fsdpTpInputGradientOnly() {
        runsCorrectlyOnEveryStream(new FsdpTp(), Map.of("num_layers", "3", "batch_size", "3", "seq_len", "7",
                "weight_grads", "false"));
    }

    /** Sequences longer than the attention's short path (256): its flash kernels. */
    @Test
    void fsdpTpWithLongSequences() {
        runsCorrectlyOnEveryStream(new FsdpTp(), Map.of("num_layers", "3", "batch_size", "2", "seq_len", "301"));
    }

    @Test
    void moe() {
        runsCorrectlyOnEveryStream(new Moe(), Map.of("hidden_size", "96", "intermediate_size", "160",
                "batch_size", "3", "seq_len", "37", "capacity_factor_pct", "110"));
    }

    /**
     * graphs=true (each request's work per stream replayed as a CUDA graph; its check also compares a replayed
     * round with the same round run eagerly) and false (every kernel launched).
     */
    @ParameterizedTest
    @ValueSource(strings = {"true", "false"})
    void speculativeDecode(String graphs) {
        runsCorrectlyOnEveryStream(new SpeculativeDecode(), Map.of("vocab_size", "97", "draft_hidden", "32",
                "draft_layers", "2", "draft_heads", "2", "main_hidden", "64", "main_layers", "2", "main_heads", "4",
                "context_len", "9", "graphs", graphs));
    }

    /** graphs=true (the prefill replayed as CUDA graphs) and false (every kernel launched). */
    @ParameterizedTest
    @ValueSource(strings = {"true", "false"})
    void continuousBatch(String graphs) {
        runsCorrectlyOnEveryStream(new ContinuousBatch(), Map.of("num_layers", "2", "hidden_size", "64",
                "num_heads", "4", "prefill_len", "11", "context_len", "7", "max_new_tokens", "2", "graphs", graphs));
    }

    @Test
    void activationCkpt() {
        runsCorrectlyOnEveryStream(new ActivationCkpt(), Map.of("num_blocks", "6", "hidden_size", "64",
                "batch_size", "2", "seq_len", "9"));
    }

    @Test
    void gradAccum() {
        runsCorrectlyOnEveryStream(new GradAccum(), Map.of("num_microbatches", "5", "microbatch_size", "7"));
    }

    /**
     * graphs=true (each stage's work per stream replayed as a CUDA graph; its check also compares the replayed
     * generator output with every stage run eagerly) and false (every kernel launched).
     */
    @ParameterizedTest
    @ValueSource(strings = {"true", "false"})
    void ragPipeline(String graphs) {
        runsCorrectlyOnEveryStream(new RagPipeline(), Map.of("query_len", "5", "embed_dim", "96", "num_heads", "4",
                "retrieval_dim", "32", "num_docs", "23", "doc_len", "6", "num_layers", "2", "vocab_size", "101",
                "graphs", graphs));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tf32", "fp32", "bf16", "fp16"})
    void asyncDataload(String precision) {
        runsCorrectlyOnEveryStream(new AsyncDataload(), Map.of("batch_size", "3", "image_size", "24", "precision",
                precision));
    }
}
