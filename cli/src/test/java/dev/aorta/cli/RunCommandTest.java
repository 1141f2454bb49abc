package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.workloads.session.GpuUnavailableException;
import dev.aorta.workloads.session.NativeEnvironment;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class RunCommandTest {
    @TempDir
    Path dir;

    private final List<SimulatedGpuSession> opened = new ArrayList<>();

    private CliRunner.Outcome aorta(String... args) {
        return CliRunner.run(device -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            opened.add(s);
            return s;
        }, args);
    }

    @Test
    void runWritesAResultWithAortasKeysAndOurs() throws Exception {
        Path out = dir.resolve("r.json");
        CliRunner.Outcome o = aorta("run", "tiny_kernel_stress", "-s", "4", "-i", "10", "-w", "2",
                "-p", "ops_per_stream=3", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode r = ResultJson.read(out);
        for (String key : List.of("throughput", "throughput_unit", "latency_ms", "total_time_ms", "stream_count",
                "per_stream_times_ms", "iteration_times_ms", "switch_latency", "memory", "metadata", "workload_name",
                "timestamp", "timing_source", "dispatch_latency", "kernels", "host_enqueue", "streams")) {
            assertThat(r.has(key)).as(key).isTrue();
        }
        for (String key : List.of("mean", "p50", "p95", "p99", "min", "max", "std")) {
            assertThat(r.path("latency_ms").path(key).isNumber()).as(key).isTrue();
        }
        for (String key : List.of("config", "device_info", "env_vars", "workload_config")) {
            assertThat(r.path("metadata").has(key)).as(key).isTrue();
        }
        assertThat(r.path("workload_name").asText()).isEqualTo("tiny_kernel_stress");
        assertThat(r.path("stream_count").asInt()).isEqualTo(4);
        assertThat(r.path("iteration_times_ms")).hasSize(10);
        assertThat(r.path("per_stream_times_ms")).hasSize(4);
        r.path("per_stream_times_ms").forEach(v -> assertThat(v.asDouble()).isPositive());
        assertThat(r.path("metadata").path("config").path("sync_mode").asText()).isEqualTo("per_iteration");
        assertThat(r.path("metadata").path("env_vars").has("CUDA_DEVICE_MAX_CONNECTIONS")).isTrue();
        assertThat(r.path("memory").has("peak_allocated_gb")).isTrue();
        assertThat(o.out()).contains("throughput").contains("kernels/s").contains("host enqueue")
                .contains("us/launch").contains("estimated switch overhead").contains("= ");
        // launches counted as the iterations made them: 4 streams x 3 ops x 4 kernels, the same every iteration
        JsonNode h = r.path("host_enqueue");
        assertThat(h.path("launches_per_iteration").asDouble()).isEqualTo(48);
        assertThat(h.path("launches_per_iteration_min").asLong()).isEqualTo(48);
        assertThat(h.path("launches_per_iteration_max").asLong()).isEqualTo(48);
        assertThat(o.out()).contains("48 launches per iteration").doesNotContain("varying");
    }

    @Test
    void profileWritesAChromeTraceWithOneTrackPerStreamFromTheSameRun() throws Exception {
        CliRunner.Outcome o = aorta("run", "hetero_kernels", "-s", "4", "-i", "5", "-w", "1",
                "-p", "gemm_size=256", "--profile", "--profile-dir", dir.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(opened).hasSize(1);  // one session, one setup: the trace comes from the run's traced iterations
        JsonNode trace = ResultJson.read(dir.resolve("hetero_kernels_s4_trace.json"));
        List<String> tracks = new ArrayList<>();
        int kernels = 0;
        for (JsonNode e : trace.path("traceEvents")) {
            if (e.path("name").asText().equals("thread_name")) {
                tracks.add(e.path("args").path("name").asText());
            }
            if (e.path("ph").asText().equals("X")) {
                kernels++;
                assertThat(e.path("dur").asDouble()).isPositive();
            }
        }
        assertThat(tracks).containsExactly("stream 0 (large, priority 0)", "stream 1 (large, priority 0)",
                "stream 2 (small, priority 0)", "stream 3 (small, priority 0)");
        // the 10 traced iterations (--timing-samples), not the 5 measured ones
        assertThat(kernels).isEqualTo(10 * (2 + 2 * 10));
    }

    @Test
    void analyzeReadsTheProfileTraceWithTheBusyTimeOfEachStreamItHolds() throws Exception {
        CliRunner.Outcome o = aorta("run", "hetero_kernels", "-s", "4", "-i", "5", "-w", "1",
                "-p", "gemm_size=256", "--profile", "--profile-dir", dir.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        Path file = dir.resolve("hetero_kernels_s4_trace.json");
        // the union of the slices of each stream (args.stream) and of all, in ns, straight from the file
        Map<Long, IntervalSet> byStream = new TreeMap<>();
        IntervalSet all = IntervalSet.EMPTY;
        for (JsonNode e : ResultJson.read(file).path("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                long start = e.path("ts").decimalValue().movePointRight(3).longValueExact();
                long end = start + e.path("dur").decimalValue().movePointRight(3).longValueExact();
                byStream.merge(e.path("args").path("stream").asLong(), IntervalSet.of(start, end), IntervalSet::union);
                all = all.union(IntervalSet.of(start, end));
            }
        }

        CliRunner.Outcome a = CliRunner.run(null, "analyze", "--format", "json", "--details", "--window", "whole",
                file.toString());
        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(a.err()).doesNotContain("warning");
        JsonNode w = ResultJson.MAPPER.readTree(a.out().lines().findFirst().orElseThrow());
        assertThat(w.path("busy_ns").asLong()).isEqualTo(all.length());
        Map<Long, Long> busy = new TreeMap<>();
        w.path("streams").forEach(s -> busy.put(s.path("stream").asLong(), s.path("busy_ns").asLong()));
        Map<Long, Long> expected = new TreeMap<>();
        byStream.forEach((stream, u) -> expected.put(stream, u.length()));
        assertThat(busy).hasSize(4).isEqualTo(expected);
    }

    @Test
    void theReportPointsOutStreamsBeyondTheHardwareQueues() {
        CliRunner.Outcome o = aorta("run", "tiny_kernel_stress", "-s", "40", "-i", "2", "-w", "1",
                "-p", "ops_per_stream=1", "--max-connections", "32");
        assertThat(o.out()).contains("interpretation:")
                .contains("40 streams share 32 hardware queues (CUDA_DEVICE_MAX_CONNECTIONS)");
    }

    @Test
    void maxConnectionsReachesTheProcessEnvironmentBeforeTheGpuOpensAndIsRecorded() throws Exception {
        Path out = dir.resolve("mc.json");
        // the variable is process-wide, so every test that sets it uses the same value
        CliRunner.Outcome o = CliRunner.run(device -> {
            assertThat(NativeEnvironment.get("CUDA_DEVICE_MAX_CONNECTIONS")).isEqualTo("32");
            return new SimulatedGpuSession();
        }, "run", "tiny_kernel_stress", "-s", "2", "-i", "2", "-w", "1", "--max-connections", "32", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode r = ResultJson.read(out);
        assertThat(r.path("metadata").path("env_vars").path("CUDA_DEVICE_MAX_CONNECTIONS").asText()).isEqualTo("32");
        assertThat(r.path("metadata").path("config").path("max_connections").asInt()).isEqualTo(32);
    }

    @Test
    void syncModeNoneSaysLatencyIsNotDefined() throws Exception {
        Path out = dir.resolve("none.json");
        CliRunner.Outcome o = aorta("run", "large_gemm_only", "-s", "2", "-i", "4", "-w", "1", "-p", "size=256",
                "--sync-mode", "none", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode r = ResultJson.read(out);
        assertThat(r.path("latency_ms").isNull()).isTrue();
        assertThat(r.path("latency_note").asText()).contains("not defined");
        assertThat(o.out()).contains("not defined");
    }

    @Test
    void baselineLoopReportsTheRatioToAPlainLoop() {
        CliRunner.Outcome o = aorta("run", "large_gemm_only", "-s", "4", "-i", "5", "-w", "1", "-p", "size=512",
                "--dtype", "bf16", "--baseline-loop");
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("baseline loop").contains("ratio");
    }

    @Test
    void badInputGetsOneClearSentenceAndExitTwo() {
        assertThat(aorta("run", "tiny_kernel_stres")).satisfies(o -> {
            assertThat(o.exitCode()).isEqualTo(2);
            assertThat(o.err()).contains("unknown workload 'tiny_kernel_stres'; did you mean tiny_kernel_stress?");
        });
        assertThat(aorta("run", "large_gemm_only", "-s", "32").err())
                .contains("--streams 32 is outside the range of large_gemm_only: 1..16 streams");
        assertThat(aorta("run", "large_gemm_only", "--sync-mode", "often").err())
                .contains("unknown --sync-mode 'often'; expected one of [per_iteration, end_only, none]");
        assertThat(aorta("run", "large_gemm_only", "--dtype", "int4").err())
                .contains("unknown dtype 'int4'");
        assertThat(aorta("run", "tiny_kernel_stress", "--max-connections", "64").err())
                .contains("--max-connections must be 1..32");
        assertThat(aorta("list", "-c", "nope").err()).contains("--category nope: no such category");
        assertThat(opened).isEmpty();  // all rejected before touching the GPU
    }

    @Test
    void badWorkloadParameterValuesAreNamedBeforeTheGpuIsTouched() {
        for (String bad : List.of("abc", "0", "-3", "1.5", "99999999999")) {
            CliRunner.Outcome o = aorta("run", "tiny_kernel_stress", "-p", "size=" + bad);
            assertThat(o.exitCode()).isEqualTo(2);
            assertThat(o.err()).isEqualTo("aorta run: --param size=" + bad + ": expected an integer of 1 or more"
                    + System.lineSeparator());
        }
        assertThat(aorta("sweep", "hetero_kernels", "-s", "2,4", "-p", "small_per_large=x").err())
                .isEqualTo("aorta sweep: --param small_per_large=x: expected an integer of 1 or more"
                        + System.lineSeparator());
        assertThat(opened).isEmpty();
    }

    @Test
    void withoutAGpuABadParameterIsStillTheErrorReported() {
        CliRunner.Outcome o = CliRunner.run(device -> {
            throw new GpuUnavailableException("no CUDA driver found: libcuda.so.1 cannot be loaded");
        }, "run", "tiny_kernel_stress", "-p", "size=abc");
        assertThat(o.err().strip()).isEqualTo("aorta run: --param size=abc: expected an integer of 1 or more");
    }

    @Test
    void unknownNamesListTheKnownOnes() {
        assertThat(aorta("run", "tiny_kernel_stress", "-p", "nosuch=1").err().strip()).isEqualTo("aorta run: --param "
                + "nosuch: tiny_kernel_stress has the parameters [kernels_per_op, ops_per_stream, size]");
        assertThat(aorta("run", "nosuchworkload").err()).startsWith("aorta run: unknown workload 'nosuchworkload'; "
                + "known: ").contains("hetero_kernels", "large_gemm_only", "tiny_kernel_stress");
        assertThat(opened).isEmpty();
    }

    @Test
    void aWrongResultMakesRunExitOneAndSaysWhere() {
        CliRunner.Outcome o = CliRunner.run(device -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            s.miscomputed = "vec_scale";
            return s;
        }, "run", "hetero_kernels", "-s", "2", "-i", "3", "-w", "1", "-p", "gemm_size=64");
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.out()).contains("correctness").contains("FAILED: small stream 1 x[");
        assertThat(o.err()).contains("aorta run: hetero_kernels computed a wrong result: small stream 1 x[");
    }

    @Test
    void withoutAGpuGpuCommandsFailWithOneSentence() {
        CliRunner.Outcome o = CliRunner.run(device -> {
            throw new GpuUnavailableException("no CUDA driver found: libcuda.so.1 cannot be loaded");
        }, "run", "tiny_kernel_stress");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().strip()).isEqualTo("aorta run: no CUDA driver found: libcuda.so.1 cannot be loaded");
    }

    @Test
    void listShowsTheBundledWorkloadsWithTheirRangesAndParameters() {
        CliRunner.Outcome o = aorta("list", "-v");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("hetero_kernels").contains("tiny_kernel_stress").contains("large_gemm_only")
                .contains("1..16").contains("--param gemm_size=4096").contains("--param size=256")
                .contains("--param size=8192").contains("--param small_per_large=10");
        assertThat(aorta("list", "-c", "hw_queue").out()).doesNotContain("failing_for_tests");
    }

    @Test
    void sweepRunsEveryCountOnOneSessionAndAnalysesScaling() throws Exception {
        Path out = dir.resolve("sweep.json");
        CliRunner.Outcome o = aorta("sweep", "tiny_kernel_stress", "--streams", "4,1,2", "-i", "5", "-w", "1",
                "-p", "ops_per_stream=2", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(opened).hasSize(1);
        JsonNode s = ResultJson.read(out);
        for (String key : List.of("timestamp", "workload", "results", "analysis", "environment")) {
            assertThat(s.has(key)).as(key).isTrue();
        }
        assertThat(s.path("results")).hasSize(3);
        assertThat(s.path("results").get(0).path("stream_count").asInt()).isEqualTo(1);
        assertThat(s.path("analysis").path("scaling")).hasSize(3);
        assertThat(s.path("analysis").path("scaling").get(0).path("efficiency").asDouble()).isEqualTo(1.0);
        assertThat(s.path("analysis").has("inflection_streams")).isTrue();
        assertThat(o.out()).contains("[1/3]").contains("EFFICIENCY").contains("inflection point");
    }

    @Test
    void sweepSkipsACountOutsideTheRangeWithANote() throws Exception {
        Path out = dir.resolve("sweep.json");
        CliRunner.Outcome o = aorta("sweep", "large_gemm_only", "--streams", "1,2,32", "-i", "3", "-w", "1",
                "-p", "size=64", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("note: large_gemm_only skips 32 streams (outside its range 1..16)");
        JsonNode sweep = ResultJson.read(out);
        assertThat(sweep.path("results")).hasSize(2);
        assertThat(sweep.path("analysis").path("scaling").findValuesAsText("streams")).containsExactly("1", "2");
    }

    @Test
    void sweepWithNoCountInsideTheRangeIsRefusedBeforeTheGpuOpens() {
        CliRunner.Outcome o = aorta("sweep", "hetero_kernels", "--streams", "1,128");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--streams [1, 128]: none is inside the range of hetero_kernels: 2..64 streams");
        assertThat(opened).isEmpty();
    }

    @Test
    void runPriorityReportsAFailingWorkloadAndGoesOn() throws Exception {
        CliRunner.Outcome o = aorta("run-priority", "all", "-i", "5", "-w", "1", "--output-dir", dir.toString(),
                "--sync-mode", "end_only");
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.err()).contains("failing_for_tests failed: boom at 3");
        assertThat(o.out()).contains("FAILED: boom at 3").contains("12 of 15 runs failed")
                .contains("graph_subgraphs runs the model module's CUDA ops and needs a GPU");
        for (String w : List.of("hetero_kernels", "tiny_kernel_stress", "large_gemm_only")) {
            assertThat(Files.exists(dir.resolve(w + ".json"))).as(w).isTrue();
        }
    }

    @Test
    void runPriorityPrintsTheWallTimeOfEachRunAndTheSumPerTier() {
        CliRunner.Outcome o = aorta("run-priority", "P0", "-i", "3", "-w", "1");
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).containsPattern("WORKLOAD\\s+PRI\\s+STREAMS\\s+THROUGHPUT\\s+P50 MS\\s+P99 MS\\s+WALL S");
        double sum = o.out().lines().filter(l -> l.matches("(hetero_kernels|tiny_kernel_stress|large_gemm_only)\\s.*"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        java.util.regex.Matcher tier = java.util.regex.Pattern.compile("tier P0: ([0-9.]+) s wall").matcher(o.out());
        assertThat(tier.find()).as(o.out()).isTrue();
        assertThat(Double.parseDouble(tier.group(1))).isCloseTo(sum, org.assertj.core.api.Assertions.within(0.2));
        assertThat(o.out()).containsPattern("all: [0-9.]+ s wall");
    }

    @Test
    void runPriorityRunsOnlyTheTierAsked() {
        CliRunner.Outcome o = aorta("run-priority", "P3", "-i", "5", "-w", "1");
        assertThat(o.out()).contains("failing_for_tests").doesNotContain("hetero_kernels");
        assertThat(aorta("run-priority", "P7").err()).contains("unknown priority 'P7'");
    }

    @Test
    void everyResultRecordsTheGpuStateBeforeAndAfterOrWhyItCannot() throws Exception {
        Path out = dir.resolve("t.json");
        CliRunner.Outcome o = aorta("run", "tiny_kernel_stress", "-s", "2", "-i", "3", "-w", "1",
                "-p", "ops_per_stream=2", "-o", out.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode t = ResultJson.read(out).path("gpu_telemetry");
        for (String when : List.of("before", "after")) {
            assertThat(t.path(when).path("available").asBoolean()).isFalse();
            assertThat(t.path(when).path("reason").asText()).isEqualTo("simulated GPU session: no NVML");
        }
        assertThat(o.out()).contains("gpu telemetry").contains("unavailable (simulated GPU session: no NVML)");

        Path hot = dir.resolve("hot.json");
        CliRunner.Outcome h = CliRunner.run(device -> {
            SimulatedGpuSession s = new SimulatedGpuSession();
            s.telemetry = new dev.aorta.workloads.session.GpuTelemetry(java.time.Instant.EPOCH, null,
                    java.util.Map.of("sm_clock_mhz", 1980, "power_w", 312.5, "temperature_c", 61),
                    java.util.Map.of("pcie_tx_kbps", "Not Supported"));
            return s;
        }, "run", "tiny_kernel_stress", "-s", "2", "-i", "3", "-w", "1", "-p", "ops_per_stream=2", "-o", hot.toString());
        assertThat(h.exitCode()).as(h.err()).isZero();
        JsonNode after = ResultJson.read(hot).path("gpu_telemetry").path("after");
        assertThat(after.path("sm_clock_mhz").asInt()).isEqualTo(1980);
        assertThat(after.path("power_w").asDouble()).isEqualTo(312.5);
        assertThat(after.path("missing").path("pcie_tx_kbps").asText()).isEqualTo("Not Supported");
        assertThat(h.out()).contains("1980 MHz, 312.5 W, 61 C -> 1980 MHz");
    }
}
