package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** aorta overlap in one process on the simulated device (stream 0 = communication, the others compute). */
class OverlapCommandTest {
    @TempDir
    Path dir;

    private final List<SimulatedGpuSession> opened = new ArrayList<>();

    private CliRunner.Outcome aorta(Consumer<SimulatedGpuSession> device, String... args) {
        return CliRunner.run(d -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            device.accept(s);
            opened.add(s);
            return s;
        }, args);
    }

    /** A device whose streams run side by side (no single engine), so communication can overlap compute. */
    private static void parallel(SimulatedGpuSession s) {
        s.serialEngine = false;
    }

    private static final String[] SMALL = {"--mm-dim", "512", "--num-compute", "4", "--comm-size", "4M",
            "-i", "20", "-w", "2"};

    private static String[] args(String... more) {
        List<String> a = new ArrayList<>(List.of("overlap"));
        a.addAll(List.of(SMALL));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    @Test
    void withoutRealCollectivesACopyStandsInAndTheResultSaysSo() throws Exception {
        Path out = dir.resolve("o.json");
        CliRunner.Outcome o = aorta(OverlapCommandTest::parallel, args("--async-op", "-o", out.toString()));
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("SIMULATED").contains("comm_overlap_pct").contains("exposed comm")
                .contains("compute slowdown").contains("TFLOP/s").contains("correctness").contains("ok");
        JsonNode r = ResultJson.read(out);
        assertThat(r.path("schema").asText()).isEqualTo("aorta.overlap/1");
        assertThat(r.path("communication").path("kind").asText()).isEqualTo("simulated_copy");
        assertThat(r.path("communication").path("note").asText()).contains("device copy");
        assertThat(r.path("communication").path("busbw_gbps").isNull()).isTrue();
        // the simulated copy moves 4 MiB at 200 bytes/ns
        assertThat(r.path("communication").path("algbw_gbps").asDouble()).isCloseTo(200, within(1.0));
        assertThat(r.path("runs").has("comms_compute")).isTrue();
        assertThat(r.path("runs").has("compute_only")).isTrue();
        assertThat(r.path("runs").has("comms_only")).isTrue();
        assertThat(r.path("correctness").path("checked").asBoolean()).isTrue();
        assertThat(r.path("correctness").path("problem").isNull()).isTrue();
        assertThat(opened).hasSize(1);
    }

    @Test
    void asyncCollectivesOverlapTheGemmsAndBlockingOnesDoNot() throws Exception {
        Path async = dir.resolve("async.json");
        Path blocking = dir.resolve("blocking.json");
        assertThat(aorta(OverlapCommandTest::parallel, args("--async-op", "-o", async.toString())).exitCode()).isZero();
        assertThat(aorta(OverlapCommandTest::parallel, args("-o", blocking.toString())).exitCode()).isZero();
        JsonNode a = ResultJson.read(async).path("overlap");
        JsonNode b = ResultJson.read(blocking).path("overlap");
        assertThat(a.path("comm_overlap_pct").asDouble()).isGreaterThan(50);
        assertThat(a.path("exposed_comm_ns").asLong()).isLessThan(a.path("comm_ns").asLong() / 2);
        // the host waits for each collective before it enqueues the GEMMs: nothing to overlap with
        assertThat(b.path("comm_overlap_pct").asDouble()).isZero();
        assertThat(b.path("exposed_comm_ns").asLong()).isEqualTo(b.path("comm_ns").asLong());
        assertThat(b.path("comm_ns").asLong()).isPositive();
    }

    @Test
    void onASingleEngineCommunicationWaitsForComputeAndComputeSlowsDownByNothing() throws Exception {
        Path out = dir.resolve("serial.json");
        assertThat(aorta(s -> { }, args("--async-op", "-o", out.toString())).exitCode()).isZero();
        JsonNode r = ResultJson.read(out);
        assertThat(r.path("overlap").path("comm_overlap_pct").asDouble()).isZero();
        assertThat(r.path("compute_slowdown").asDouble()).isCloseTo(1.0, within(1e-9));
        // 512^3 GEMMs at 50 TFLOP/s on the simulated device
        assertThat(r.path("compute").path("tflops").asDouble()).isCloseTo(50, within(0.5));
    }

    @Test
    void realCollectivesWithTheReferenceRunsAlignRanksOnlyWhereThereIsCommunication() throws Exception {
        Path out = dir.resolve("refs.json");
        CliRunner.Outcome o = aorta(s -> { }, args("--mode", "comms_compute", "--real-collectives", "--async-op",
                "-o", out.toString()));
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(ResultJson.read(out).path("runs").size()).isEqualTo(3); // comms_compute, compute_only, comms_only
    }

    @Test
    void computeOnlyRunsOnlyGemmsAndCommsOnlyReportsTheLoopBandwidth() throws Exception {
        Path c = dir.resolve("c.json");
        Path m = dir.resolve("m.json");
        assertThat(aorta(s -> { }, args("--mode", "compute_only", "-o", c.toString())).exitCode()).isZero();
        // traced by CUPTI, so the kernels' own durations give the kernel-only bandwidth next to the loop's
        CliRunner.Outcome comms = aorta(s -> { }, args("--mode", "comms_only", "--async-op", "--sync-mode", "end_only",
                "--real-collectives", "--num-coll", "3", "--kernel-timing", "cupti", "-o", m.toString()));
        assertThat(comms.exitCode()).as(comms.err()).isZero();
        JsonNode cr = ResultJson.read(c);
        assertThat(cr.path("overlap").path("comm_ns").asLong()).isZero();
        assertThat(cr.path("runs").size()).isEqualTo(1);
        assertThat(cr.has("communication") && cr.path("communication").has("algbw_gbps")).isFalse();
        JsonNode mr = ResultJson.read(m);
        assertThat(mr.path("overlap").path("compute_ns").asLong()).isZero();
        assertThat(mr.path("communication").path("kind").asText()).isEqualTo("nccl");
        assertThat(mr.path("communication").path("ranks").asInt()).isEqualTo(1);
        // one rank: nccl-tests' all-reduce factor 2(n-1)/n is 0
        assertThat(mr.path("communication").path("busbw_factor").asDouble()).isZero();
        assertThat(mr.path("communication").path("loop_algbw_gbps").asDouble()).isPositive()
                .isLessThanOrEqualTo(mr.path("communication").path("algbw_gbps").asDouble());
        // + the barrier before the measured loop + the correctness check + the traced warm-up and traced iterations
        assertThat(opened.getLast().collectivesIssued).hasSize(3 * (20 + 2) + 1 + 1 + 3 * (2 + 10));
    }

    @Test
    void withEventPairsInsteadOfCuptiCommunicationIsStillTellTheGemmsApart() throws Exception {
        for (String real : List.of("--real-collectives", "--async-op")) {
            Path out = dir.resolve("pairs" + real + ".json");
            CliRunner.Outcome o = aorta(OverlapCommandTest::parallel, args("--kernel-timing", "event-pairs", real,
                    "--no-references", "-o", out.toString()));
            assertThat(o.exitCode()).as(o.err()).isZero();
            JsonNode r = ResultJson.read(out);
            assertThat(r.path("runs").path("comms_compute").path("timing_source").asText()).isEqualTo("event_pairs_sampled");
            assertThat(r.path("overlap").path("comm_ns").asLong()).as(real).isPositive();
            assertThat(r.path("overlap").path("compute_ns").asLong()).as(real).isPositive();
            assertThat(r.path("overlap").path("iterations").asInt()).isEqualTo(10);
        }
    }

    @Test
    void commsOnlyMeasuresItsLoopBandwidthUntracedWhicheverSourceTracesTheKernels() throws Exception {
        Path cupti = dir.resolve("cupti.json");
        Path pairs = dir.resolve("pairs.json");
        Consumer<SimulatedGpuSession> costlyTracer = s -> {
            s.tracingHostNsPerLaunch = 4_000;
            s.tracingDeviceGapNs = 5_000;
        };
        CliRunner.Outcome o = aorta(costlyTracer, args("--mode", "comms_only", "--real-collectives", "-o",
                cupti.toString()));
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(aorta(costlyTracer, args("--mode", "comms_only", "--real-collectives", "--kernel-timing",
                "event-pairs", "-o", pairs.toString())).exitCode()).isZero();
        JsonNode traced = ResultJson.read(cupti);
        JsonNode sampled = ResultJson.read(pairs);
        assertThat(traced.path("runs").path("comms_only").path("timing_source").asText()).isEqualTo("cupti");
        assertThat(sampled.path("runs").path("comms_only").path("timing_source").asText())
                .isEqualTo("event_pairs_sampled");
        assertThat(traced.path("communication").path("loop_algbw_gbps").asDouble()).isPositive()
                .isEqualTo(sampled.path("communication").path("loop_algbw_gbps").asDouble());
    }

    @Test
    void aWrongCollectiveResultFailsTheRun() {
        CliRunner.Outcome o = aorta(s -> s.miscomputed = "AllReduce_Sum", args("--real-collectives", "--no-references"));
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.err()).contains("computed a wrong result").contains("element 0 is 2.0, expected 1.0");
    }

    private CliRunner.Outcome rejected(String... args) {
        CliRunner.Outcome o = aorta(s -> { }, args);
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(opened).as("no GPU work before the error").isEmpty();
        return o;
    }

    @Test
    void badInputIsAClearErrorBeforeAnyGpuWork() {
        assertThat(rejected("overlap", "--backend", "gloo").err())
                .contains("aorta overlap: --backend gloo: only nccl is supported (gloo is PyTorch's CPU backend");
        assertThat(rejected("overlap", "--comm-size", "12Q").err())
                .contains("--comm-size '12Q': expected a byte count with an optional K, M or G suffix");
        assertThat(rejected("overlap", "--comm-dtype", "int3").err())
                .contains("unknown communication dtype 'int3'; expected one of [fp32, bf16, fp16]");
        assertThat(rejected("overlap", "--comp-dtype", "fp8").err()).contains("unknown dtype 'fp8'");
        assertThat(rejected("overlap", "--mode", "both").err()).contains("--mode: unknown mode 'both'");
        assertThat(rejected("overlap", "--mm-dim", "1,2").err()).contains("--mm-dim '1,2': expected M,N,K");
        assertThat(rejected("overlap", "--process-groups", "[0],[0]").err())
                .contains("--process-groups: rank 0 appears in groups 1 and 2");
        assertThat(rejected("overlap", "--process-groups", "[0,1]", "--real-collectives").err())
                .contains("--process-groups: rank 1 is outside the world of 1 rank");
        assertThat(rejected("overlap", "--process-groups", "[0]").err())
                .contains("--process-groups needs real collectives");
        assertThat(rejected("overlap", "--comm-size", "1001", "--real-collectives").err())
                .contains("--comm-size 1001 bytes: all_reduce of bf16 needs a positive multiple of 2 bytes");
        assertThat(rejected("overlap", "--collective", "gather").err()).contains("--collective: unknown collective 'gather'");
    }

    @Test
    void sizesTakeBinarySuffixes() {
        assertThat(dev.aorta.workloads.comm.OverlapConfig.parseSize("128M")).isEqualTo(128L << 20);
        assertThat(dev.aorta.workloads.comm.OverlapConfig.parseSize("64KiB")).isEqualTo(64L << 10);
        assertThat(dev.aorta.workloads.comm.OverlapConfig.parseSize("1g")).isEqualTo(1L << 30);
        assertThat(dev.aorta.workloads.comm.OverlapConfig.parseSize("4096")).isEqualTo(4096);
    }
}
