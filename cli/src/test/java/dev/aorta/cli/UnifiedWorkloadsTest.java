package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.SimulatedGpuSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** comms_compute_overlap and launch_overhead are workloads like the others: listed, run, swept, run by tier. */
class UnifiedWorkloadsTest {
    @TempDir
    Path dir;

    private final List<SimulatedGpuSession> opened = new ArrayList<>();

    private CliRunner.Outcome aorta(String... args) {
        return CliRunner.run(device -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            s.serialEngine = false;
            opened.add(s);
            return s;
        }, args);
    }

    @Test
    void listShowsBothWithoutATier() {
        CliRunner.Outcome o = aorta("list", "-v");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).containsPattern("comms_compute_overlap\\s+-\\s+comms\\s+2\\.\\.32\\s+4")
                .containsPattern("launch_overhead\\s+-\\s+launch\\s+1\\.\\.1\\s+1")
                .contains("--param pattern=argmin").contains("(one of argmin, balanced)")
                .contains("aorta run comms_compute_overlap takes the options of aorta overlap");
    }

    @Test
    void runOfTheOverlapWorkloadTakesAortasOptionsAndCountsStreamsAsAortaDoes() throws Exception {
        Path out = dir.resolve("cco.json");
        Path traces = dir.resolve("traces");
        CliRunner.Outcome o = aorta("run", "comms_compute_overlap", "--streams", "4", "--async-op", "--mm-dim", "256",
                "--comm-size", "1M", "--no-references", "-i", "3", "-w", "1", "-o", out.toString(), "--profile",
                "--profile-dir", traces.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode r = ResultJson.read(out);
        assertThat(r.path("config").path("compute_streams").asInt()).isEqualTo(3);
        assertThat(r.path("runs").path("comms_compute").path("stream_count").asInt()).isEqualTo(4);
        assertThat(Files.exists(traces.resolve("comms_compute_overlap_s4_trace.json"))).isTrue();
    }

    @Test
    void runOfTheOverlapWorkloadRefusesWhatItCannotMean() {
        assertThat(aorta("run", "comms_compute_overlap", "--streams", "1").err())
                .contains("--streams 1 is outside the range of comms_compute_overlap: 2..32 streams");
        assertThat(aorta("run", "comms_compute_overlap", "--streams", "3", "--compute-streams", "2").err())
                .contains("--streams and --compute-streams both set the compute streams; give one");
        assertThat(aorta("run", "comms_compute_overlap", "--priorities", "mixed").err())
                .contains("--priorities is not an option of comms_compute_overlap");
        assertThat(aorta("run", "tiny_kernel_stress", "--mode", "comms_only").err())
                .contains("unknown option --mode for tiny_kernel_stress")
                .contains("-p NAME=VALUE: [size, ops_per_stream, kernels_per_op]");
        assertThat(opened).isEmpty();
    }

    @Test
    void sweepRunsTheRegistryOverlapWithSimulatedCollectivesAndSkipsOneStream() throws Exception {
        Path out = dir.resolve("sweep.json");
        CliRunner.Outcome o = aorta("sweep", "comms_compute_overlap", "-s", "1,2,3", "-i", "3", "-w", "1",
                "-p", "mm_dim=128", "-p", "comm_mib=1", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("note: comms_compute_overlap skips 1 stream (outside its range 2..32)");
        JsonNode sweep = ResultJson.read(out);
        assertThat(sweep.path("results")).hasSize(2);
        JsonNode three = sweep.path("results").get(1);
        assertThat(three.path("metadata").path("workload_config").path("stream_roles").toString())
                .isEqualTo("[\"comm\",\"compute\",\"compute\"]");
        assertThat(three.path("metadata").path("workload_config").path("comm_mib").asInt()).isEqualTo(1);
        assertThat(three.path("throughput_unit").asText()).isEqualTo("TFLOP/s");
    }

    @Test
    void aChoiceParameterOutsideItsWordsNamesThem() {
        CliRunner.Outcome o = aorta("sweep", "launch_overhead", "-s", "1", "-p", "pattern=greedy");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--param pattern=greedy: expected one of argmin, balanced");
        assertThat(opened).isEmpty();
    }

    @Test
    void runPrioritySweepsEachWorkloadOverTheCountsInsideItsRange() throws Exception {
        CliRunner.Outcome o = aorta("run-priority", "P0", "-s", "1,2", "-i", "3", "-w", "1", "-o", dir.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("note: hetero_kernels skips 1 stream (outside its range 2..64)");
        JsonNode tiny = ResultJson.read(dir.resolve("tiny_kernel_stress_results.json"));
        assertThat(tiny.path("schema").asText()).isEqualTo(ResultJson.SWEEP_SCHEMA);
        assertThat(tiny.path("results")).hasSize(2);
        assertThat(ResultJson.read(dir.resolve("hetero_kernels_results.json")).path("results")).hasSize(1);
        assertThat(o.out().lines().filter(l -> l.startsWith("tiny_kernel_stress")).count()).isEqualTo(2);
    }

    @Test
    void runPriorityUntieredRunsTheTwoAndAllDoesNot() {
        CliRunner.Outcome all = aorta("run-priority", "all", "-i", "2", "-w", "0", "-s", "2");
        assertThat(all.out()).doesNotContain("comms_compute_overlap").doesNotContain("launch_overhead ");
        CliRunner.Outcome untiered = aorta("run-priority", "untiered", "-i", "2", "-w", "0", "-s", "4");
        assertThat(untiered.out()).contains("note: launch_overhead skips 4 streams (outside its range 1..1)")
                .containsPattern("comms_compute_overlap\\s+-\\s+4\\s");
    }

    @Test
    void theCopyProbePrintsAndWritesItsDeviceTimedSavingsPerDirection() throws Exception {
        Path out = dir.resolve("probe.json");
        CliRunner.Outcome o = aorta("run", "copy_compute_overlap", "-p", "copy_mib=1", "-p", "matrix=512", "-i", "3",
                "-w", "1", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("copy_compute_overlap results (device time):").contains("  h2d:")
                .containsPattern("savings_pct\\s+\\d").contains("copy_engines");
        JsonNode r = ResultJson.read(out).path("workload_results");
        for (String d : List.of("h2d", "d2h", "d2d")) {
            assertThat(r.path(d).path("savings_pct").asDouble()).as(d).isPositive();
        }
        assertThat(aorta("run", "copy_compute_overlap", "-s", "3").err())
                .contains("--streams 3 is outside the range of copy_compute_overlap: 2..2 streams");
    }

    @Test
    void modelWorkloadsAreListedInTheirTiersAndSayTheyNeedAGpuOnTheSimulatedOne() {
        CliRunner.Outcome list = aorta("list", "-v");
        assertThat(list.out()).containsPattern("graph_subgraphs\\s+P2\\s+hw_queue\\s+4\\.\\.32\\s+8")
                .containsPattern("zero_offload\\s+P3\\s+hw_queue\\s+4\\.\\.12\\s+6")
                .contains("--param mode=eager").contains("(one of eager, graph)")
                .contains("stream roles at 6 streams: [offload, offload, prefetch, prefetch, compute, compute]")
                .containsPattern("torch_compile\\s+P3\\s+hw_queue\\s+4\\.\\.12\\s+8").contains("--param graphs=true")
                .contains("stream roles at 8 streams: [region_a, region_a, region_b, region_b, region_c, region_c, "
                        + "merge, merge]");
        CliRunner.Outcome run = aorta("run", "graph_subgraphs", "-p", "mode=graph");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("aorta run: graph_subgraphs runs the model module's CUDA ops and needs a GPU: "
                + "the simulated GPU session has no CUDA device");
        CliRunner.Outcome tier = aorta("run-priority", "P3", "-i", "2", "-w", "0");
        assertThat(tier.exitCode()).isEqualTo(1);
        assertThat(tier.out()).contains("zero_offload").contains("FAILED: zero_offload runs the model module's CUDA ops");
    }
}
