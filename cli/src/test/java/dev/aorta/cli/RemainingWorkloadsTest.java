package dev.aorta.cli;

import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nine workloads of issue 15's second part: their tiers, stream ranges, roles and parameters as AORTA defines
 * them, their refusals of what they cannot mean (before any GPU work), and their answer on the simulated session.
 */
class RemainingWorkloadsTest {
    private final List<SimulatedGpuSession> opened = new ArrayList<>();

    private CliRunner.Outcome aorta(String... args) {
        return CliRunner.run(device -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            opened.add(s);
            return s;
        }, args);
    }

    private static Workload workload(String name) {
        return WorkloadRegistry.onClassPath().create(name);
    }

    private static List<String> roles(Workload w, int streams) {
        return IntStream.range(0, streams).mapToObj(i -> w.streamRole(i, streams)).toList();
    }

    @ParameterizedTest
    @CsvSource({"fsdp_tp, P1, 4, 16, 10, samples/s", "moe, P1, 4, 32, 16, tokens/s",
            "speculative_decode, P1, 4, 12, 6, tokens/s", "continuous_batch, P1, 4, 16, 8, tokens/s",
            "activation_ckpt, P2, 4, 12, 6, samples/s", "grad_accum, P2, 2, 16, 6, samples/s",
            "rag_pipeline, P2, 4, 12, 8, queries/s", "async_dataload, P3, 4, 12, 6, images/s"})
    void tierRangeRecommendationAndUnitAreAortas(String name, String tier, int min, int max, int recommended,
                                                 String unit) {
        Workload w = workload(name);
        assertThat(w.priority()).isEqualTo(Priority.valueOf(tier));
        assertThat(w.streamRange().min()).isEqualTo(min);
        assertThat(w.streamRange().max()).isEqualTo(max);
        assertThat(w.recommendedStreams()).isEqualTo(recommended);
        assertThat(w.hasCorrectnessCheck()).isTrue();
        assertThat(w.throughput(10, 1000).unit()).isEqualTo(unit);
    }

    @Test
    void streamRolesSplitAsAortasAndEveryRoleHasAStreamAtTheRecommendedCount() {
        assertThat(roles(workload("fsdp_tp"), 10)).containsExactly("compute", "compute", "all_gather", "all_gather",
                "all_reduce", "all_reduce", "p2p", "p2p", "p2p", "p2p");
        assertThat(roles(workload("moe"), 4)).containsExactly("gating", "expert", "expert", "expert");
        assertThat(roles(workload("speculative_decode"), 6)).containsExactly("draft", "verify", "accept", "cache",
                "draft", "verify");
        assertThat(roles(workload("continuous_batch"), 8)).containsExactly("prefill", "prefill", "decode", "decode",
                "sample", "sample", "sample", "sample");
        assertThat(roles(workload("activation_ckpt"), 6)).containsExactly("forward", "forward", "recompute",
                "recompute", "gradient", "gradient");
        assertThat(roles(workload("grad_accum"), 6)).containsExactly("compute", "compute", "compute", "reduce",
                "reduce", "reduce");
        assertThat(roles(workload("rag_pipeline"), 8)).containsExactly("embed", "embed", "retrieve", "retrieve",
                "rerank", "rerank", "generate", "generate");
        assertThat(roles(workload("async_dataload"), 6)).containsExactly("transfer", "transfer", "preprocess",
                "preprocess", "compute", "compute");
    }

    @Test
    void parametersKeepAortasDefaults() {
        CliRunner.Outcome list = aorta("list", "-v");
        assertThat(list.exitCode()).isZero();
        assertThat(list.out()).containsPattern("fsdp_tp\\s+P1\\s+hw_queue\\s+4\\.\\.16\\s+10")
                .containsPattern("moe\\s+P1\\s+hw_queue\\s+4\\.\\.32\\s+16")
                .containsPattern("async_dataload\\s+P3\\s+hw_queue\\s+4\\.\\.12\\s+6")
                .contains("--param model_size=small").contains("--param num_experts=8").contains("--param top_k=2")
                .contains("--param num_speculative=4").contains("--param decode_batch=16")
                .contains("--param checkpoint_every=2").contains("--param num_microbatches=0")
                .contains("--param num_docs=100").contains("--param num_prefetch=0");
    }

    /**
     * Every workload, at every stream count of its range, with its defaults: nothing is refused before the GPU.
     * activation_ckpt at 11 streams was, until its roles were split in even thirds (AORTA's thirds gave the gradient
     * role 5 streams for the default 4 checkpointed segments).
     */
    @Test
    void everyCountOfEveryRangeRunsWithTheDefaults() {
        List<String> refused = new ArrayList<>();
        for (Workload w : WorkloadRegistry.onClassPath().all()) {
            if (w.name().equals("failing_for_tests")) {
                continue;
            }
            for (int n = w.streamRange().min(); n <= w.streamRange().max(); n++) {
                CliRunner.Outcome o = aorta("run", w.name(), "--streams", String.valueOf(n), "-i", "1", "-w", "0");
                if (o.err().contains("idle") || o.err().contains("--param")) {
                    refused.add(w.name() + " at " + n + ": " + o.err().strip());
                }
            }
        }
        assertThat(refused).isEmpty();
    }

    /**
     * A sweep reaches every count of the range: where AORTA's default would leave streams idle (async_dataload's 2
     * batches at 8 streams, grad_accum's 4 microbatches at 16, graph_subgraphs' 8 subgraphs at 12), the default grows
     * to use every stream; the same value given explicitly is still refused.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "async_dataload|8|num_prefetch=2|--param num_prefetch=2 leaves streams idle with 8 streams",
            "grad_accum|16|num_microbatches=4|--param num_microbatches=4 leaves compute streams idle with 8",
            "graph_subgraphs|12|num_subgraphs=8|--param num_subgraphs=8 leaves subgraph streams idle with 10 of them"})
    void defaultsUseEveryStreamWhereAortasWouldNot(String name, String streams, String aortasDefault, String refusal) {
        CliRunner.Outcome o = aorta("run", name, "--streams", streams, "-i", "1", "-w", "0");
        assertThat(o.err()).doesNotContain("idle");
        CliRunner.Outcome given = aorta("run", name, "--streams", streams, "-p", aortasDefault, "-i", "1", "-w", "0");
        assertThat(given.err()).contains(refusal);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "fsdp_tp|16|num_layers=3|fsdp_tp: --param num_layers=3 leaves streams of a role idle with 16 streams (4 per role)",
            "activation_ckpt|6|num_blocks=7|activation_ckpt: --param num_blocks=7 is not a multiple of checkpoint_every=2",
            "activation_ckpt|12|checkpoint_every=4|activation_ckpt: 2 segments (num_blocks / checkpoint_every) leave streams",
            "zero_offload|12|num_layers=3|zero_offload: --param num_layers=3 leaves streams of a role idle with 12 streams (up to 4 per role)",
            "grad_accum|16|num_microbatches=4|grad_accum: --param num_microbatches=4 leaves compute streams idle with 8",
            "moe|16|top_k=9|moe: --param top_k=9 is more than num_experts=8",
            "graph_subgraphs|16|num_subgraphs=8|graph_subgraphs: --param num_subgraphs=8 leaves subgraph streams idle with 14",
            "continuous_batch|12|prefill_batch=2|continuous_batch: --param prefill_batch=2 leaves prefill streams idle",
            "speculative_decode|12|batch_size=2|speculative_decode: --param batch_size=2 leaves streams idle with 12",
            "rag_pipeline|12|top_k=2|rag_pipeline: need rerank_k <= top_k <= num_docs; got 3, 2, 100",
            "rag_pipeline|12|num_heads=5|rag_pipeline: --param embed_dim=768 does not split into num_heads=5",
            "async_dataload|12|num_prefetch=2|async_dataload: --param num_prefetch=2 leaves streams idle with 12 streams"})
    void refusesWhatItCannotMeanBeforeTouchingTheDevice(String name, String streams, String param, String error) {
        CliRunner.Outcome o = aorta("run", name, "--streams", streams, "-p", param, "-i", "1", "-w", "0");
        assertThat(o.exitCode()).as(o.out()).isNotZero();
        assertThat(o.err()).contains(error).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aValueOutsideAParametersRangeIsRefused() {
        CliRunner.Outcome o = aorta("run", "moe", "-p", "top_k=40");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--param top_k=40: expected an integer from 1 to 32");
        assertThat(opened).isEmpty();
    }

    /**
     * The decoders' CUDA graphs are a switch, on by default, described in `list -v`; anything else is refused in one
     * line before a GPU is opened.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "continuous_batch | each prefill and each decode step replayed as one CUDA graph (decode at a position read"
                    + " from device memory) | yes",
            "speculative_decode | each request's prefills, draft steps and verify replayed as CUDA graphs (one launch"
                    + " per stream and request) | 1",
            "rag_pipeline | each stage's work on each of its streams replayed as one CUDA graph (document ids stay on"
                    + " the device) | on"})
    void graphsAreATrueFalseSwitch(String workload, String graphed, String notABoolean) {
        assertThat(aorta("list", "-v").out()).contains("--param graphs=true  true: " + graphed + "; false: every "
                + "kernel launched (one of true, false)");
        CliRunner.Outcome o = aorta("run", workload, "-p", "graphs=" + notABoolean, "-i", "1", "-w", "0");
        assertThat(o.exitCode()).isNotZero();
        assertThat(o.err()).contains("graphs=" + notABoolean).contains("one of true, false").doesNotContain("\tat ");
        assertThat(opened).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"fsdp_tp", "moe", "speculative_decode", "continuous_batch", "activation_ckpt", "grad_accum",
            "rag_pipeline", "async_dataload"})
    void saysItNeedsAGpuOnTheSimulatedSession(String name) {
        CliRunner.Outcome o = aorta("run", name, "-i", "1", "-w", "0");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("aorta run: " + name + " runs the model module's CUDA ops and needs a GPU: "
                + "the simulated GPU session has no CUDA device");
    }
}
