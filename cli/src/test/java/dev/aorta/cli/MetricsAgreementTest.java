package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.agent.pipeline.MetricsSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.jsonl.EventJsonlWriter;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.workloads.comm.OverlapAnalysis;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.harness.TimingSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * One device timeline through the three places that report overlap metrics: the agent's metrics sink
 * ({@code rank_<r>_metrics.jsonl}), the analyzer ({@code aorta analyze} on the same activity as an aorta trace) and
 * the harness ({@code aorta overlap}'s {@link OverlapAnalysis}, {@code aorta run}'s queue switch and dispatch
 * latency). All three must give the same numbers, and show "undefined" the same way (docs/metrics.md).
 */
class MetricsAgreementTest {
    /** Non-zero times: a trace's {@code queued} of 0 reads as unknown. */
    private static final long T0 = 1_000_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Iteration 1, [T0, T0+1000): compute on stream 1 [0,300) [320,500) (an intra-stream gap of 20), an NCCL
     * all-reduce on stream 2 [250,600), a copy on stream 3 [650,700), compute again on stream 1 [800,1000) (a
     * stream switch: 200 idle after the all-reduce). C = 680, M = 350, C∩M = [250,300) + [320,500) = 230, Y = 50,
     * busy = 850.
     * Iteration 2, [T0+1000, T0+2000): compute only, so comm_overlap_pct is undefined there.
     */
    private static List<List<DeviceActivity>> iterations() {
        return List.of(List.of(
                        act(ActivityKind.KERNEL, "sm90_xmma_gemm", 1, 0, 300, 0, 1),
                        act(ActivityKind.KERNEL, "sm90_xmma_gemm", 1, 320, 500, 10, 2),
                        act(ActivityKind.KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2, 250, 600, 200, 3),
                        act(ActivityKind.MEMCPY, "Memcpy DtoD", 3, 650, 700, 640, 4),
                        act(ActivityKind.KERNEL, "sm90_xmma_gemm", 1, 800, 1000, 100, 5)),
                List.of(act(ActivityKind.KERNEL, "sm90_xmma_gemm", 1, 1100, 1200, 1090, 6)));
    }

    private static DeviceActivity act(ActivityKind kind, String name, long stream, long start, long end, long queued,
                                      long correlation) {
        return new DeviceActivity(kind, name, 0, 0, stream, T0 + start, T0 + end, correlation, T0 + queued,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.HOST_MONOTONIC);
    }

    private static Marker iteration(int step) {
        return new Marker(Marker.Kind.ITERATION, "step", 0, step, T0 + (step - 1) * 1000L, T0 + step * 1000L,
                ClockDomain.HOST_MONOTONIC);
    }

    @Test
    void agentAnalyzerAndHarnessReportTheSameNumbersForTheSameDeviceActivity(@TempDir Path dir) throws IOException {
        List<JsonNode> agent = agent(dir);
        List<JsonNode> analyzer = analyzer(dir);
        assertThat(agent).hasSize(2);
        assertThat(analyzer).hasSize(2);

        for (int i = 0; i < 2; i++) {
            JsonNode a = agent.get(i).path("profile").path("aorta");
            JsonNode z = analyzer.get(i);
            OverlapAnalysis h = harness(iterations().get(i));
            assertThat(z.path("window").asText()).as("iteration %d", i + 1).contains(String.valueOf(i + 1));
            // the same quantities in ns: the agent writes ms, the analyzer ns, the harness ns per iteration
            assertSameNs(a.path("compute_ms"), z.path("compute_ns"), h.computeNs());
            assertSameNs(a.path("comm_ms"), z.path("comm_ns"), h.commNs());
            assertSameNs(a.path("overlap_ms"), z.path("overlap_ns"), h.overlapNs());
            assertSameNs(a.path("exposed_comm_ms"), z.path("exposed_comm_ns"), h.exposedCommNs());
            if (i == 0) {
                // the harness's window runs from the first activity's start to the last one's end (it has no
                // iteration markers on the device clock); only iteration 1 fills its marker window, so only there
                // is the idle time the same by definition (docs/metrics.md#windows)
                assertSameNs(a.path("idle_ms"), z.path("idle_ns"), h.idleNs());
            }
            assertThat(a.path("busy_ms").asDouble() * 1e6).isCloseTo(z.path("busy_ns").asDouble(), within(1e-6));
            assertThat(a.path("exposed_memcpy_ms").asDouble() * 1e6)
                    .isCloseTo(z.path("exposed_memcpy_ns").asDouble(), within(1e-6));
            assertThat(a.path("aorta_overlap_ratio").asDouble()).isEqualTo(z.path("aorta_overlap_ratio").asDouble())
                    .isEqualTo(h.aortaOverlapRatio());
        }

        JsonNode first = agent.get(0).path("profile").path("aorta");
        assertThat(first.path("compute_ms").asDouble()).isEqualTo(680e-6);
        assertThat(first.path("overlap_ms").asDouble()).isEqualTo(230e-6);
        assertThat(first.path("exposed_comm_ms").asDouble()).isEqualTo(120e-6);
        assertThat(first.path("busy_ms").asDouble()).isEqualTo(850e-6);
        assertThat(first.path("comm_overlap_pct").asDouble()).isCloseTo(100.0 * 230 / 350, within(1e-12))
                .isEqualTo(analyzer.get(0).path("comm_overlap_pct").asDouble())
                .isEqualTo(harness(iterations().get(0)).commOverlapPct());

        // no communication in iteration 2: undefined everywhere, never 0 %
        assertThat(agent.get(1).path("profile").path("aorta").path("comm_overlap_pct").isNull()).isTrue();
        assertThat(analyzer.get(1).path("comm_overlap_pct").isNull()).isTrue();
        assertThat(harness(iterations().get(1)).commOverlapPct()).isNull();

        // queue switch overhead: one intra-stream gap of 20, one inter-stream gap of 200; the copy takes no part
        JsonNode zSwitch = analyzer.get(0).path("queue_switch");
        QueueSwitchOverhead hSwitch = Harness.switchOverhead(List.of(iterations().get(0)));
        assertThat(zSwitch.path("intra_gaps").asInt()).isEqualTo(hSwitch.intraGaps()).isEqualTo(1);
        assertThat(zSwitch.path("inter_gaps").asInt()).isEqualTo(hSwitch.interGaps()).isEqualTo(1);
        assertThat(zSwitch.path("estimated_switch_overhead_ns").asDouble())
                .isEqualTo(hSwitch.estimatedSwitchOverheadNs()).isEqualTo(180.0);
        assertThat(analyzer.get(1).path("queue_switch").path("estimated_switch_overhead_ns").isNull()).isTrue();
        assertThat(Harness.switchOverhead(List.of(iterations().get(1))).estimatedSwitchOverheadNs()).isNull();

        // dispatch latency from the queued timestamps: same-stream 20 and 300 (behind the gemm before them);
        // from enqueue 0 (first gemm), 50 (all-reduce), 10 (copy)
        JsonNode zDispatch = analyzer.get(0).path("dispatch_latency");
        DispatchLatency hDispatch = Harness.dispatchLatency(List.of(iterations().get(0)));
        assertThat(zDispatch.path("same_stream").path("count").asInt()).isEqualTo(hDispatch.sameStream().count())
                .isEqualTo(2);
        assertThat(zDispatch.path("same_stream").path("mean_ns").asDouble()).isEqualTo(hDispatch.sameStream().mean())
                .isEqualTo(160.0);
        assertThat(zDispatch.path("from_enqueue").path("count").asInt()).isEqualTo(hDispatch.fromEnqueue().count())
                .isEqualTo(3);
        assertThat(zDispatch.path("from_enqueue").path("mean_ns").asDouble())
                .isEqualTo(hDispatch.fromEnqueue().mean()).isEqualTo(20.0);
        assertThat(zDispatch.path("cross_stream").path("count").asInt()).isEqualTo(hDispatch.crossStream().count())
                .isZero();
    }

    private static void assertSameNs(JsonNode agentMs, JsonNode analyzerNs, double harnessNs) {
        assertThat(agentMs.isNumber()).as("agent value present").isTrue();
        assertThat(agentMs.asDouble() * 1e6).isCloseTo(analyzerNs.asDouble(), within(1e-6));
        assertThat(analyzerNs.asDouble()).isEqualTo(harnessNs);
    }

    /** The agent's metrics sink, fed as its drain thread feeds it; one JSON line per iteration. */
    private static List<JsonNode> agent(Path dir) throws IOException {
        Path file = dir.resolve("rank_0_metrics.jsonl");
        MetricsSink sink = new MetricsSink(file, 0, 1, 100, () -> "cupti", () -> 0L, () -> 0L, () -> -1L);
        for (List<DeviceActivity> it : iterations()) {
            for (DeviceActivity a : it) {
                sink.activity(a);
            }
        }
        sink.marker(iteration(1));
        sink.marker(iteration(2));
        sink.close();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    /** {@code aorta analyze --format json --details} on the same activity and iteration markers as an aorta trace. */
    private static List<JsonNode> analyzer(Path dir) throws IOException {
        Path trace = dir.resolve("rank_0.jsonl");
        try (OutputStream out = Files.newOutputStream(trace)) {
            EventJsonlWriter w = new EventJsonlWriter(out);
            for (List<DeviceActivity> it : iterations()) {
                for (DeviceActivity a : it) {
                    w.write(a);
                }
            }
            w.write(iteration(1));
            w.write(iteration(2));
            w.close();
        }
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json", "--details", trace.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    /** {@code aorta overlap}'s analysis of a run whose one captured iteration is {@code activities}. */
    private static OverlapAnalysis harness(List<DeviceActivity> activities) {
        RunResult.KernelTiming timing = new RunResult.KernelTiming(TimingSource.CUPTI, null, 1, activities.size(), 0, true,
                Harness.switchOverhead(List.of(activities)), Harness.dispatchLatency(List.of(activities)), null,
                List.of());
        RunResult run = new RunResult("comms_compute_overlap", null, null, null, null, null, null, null, null,
                new double[0], 0, 0, null, List.of(), timing, null, null, List.of(activities), null, null, Map.of());
        return OverlapAnalysis.of(run, 1, ActivityClassifier.defaults());
    }
}
