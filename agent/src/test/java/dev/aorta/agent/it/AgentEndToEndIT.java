package dev.aorta.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.agent.config.AgentOptions;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import example.apps.ClockApp;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent as users run it: a child JVM started with {@code -javaagent:} the shaded jar, running a
 * JCuda-shaped application against test doubles; the tests read the JSONL, metrics and JFR it wrote.
 */
class AgentEndToEndIT {
    static ChildJvm.Result withoutAgent;

    @BeforeAll
    static void baseline() throws Exception {
        assertThat(ChildJvm.AGENT_JAR).exists();
        withoutAgent = ChildJvm.run(ChildJvm.javaHome(true), null, "example.apps.JCudaApp");
        assertThat(withoutAgent.exitCode()).as(withoutAgent.stderr()).isZero();
    }

    @Test
    void onJava17_everyJCudaCallFamilyIsRecordedWithTheArgumentsThatMatter(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("agent.jfr");
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "output=" + dir + ",jfr=" + jfr + ",sample-every=10",
                "example.apps.JCudaApp");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.lines("RESULT ")).isEqualTo(withoutAgent.lines("RESULT "));
        Outputs out = Outputs.read(dir, 0);
        assertThat(out.malformed).isEmpty();
        long s1 = run.address("s1"), s2 = run.address("s2"), rs = run.address("rs"), event = run.address("e");

        ApiCall launch = out.call("cuLaunchKernel");
        assertThat(launch.stream()).isEqualTo(s1);
        assertThat(launch.args()).containsEntry("kind", "launch").containsEntry("grid_x", 100L)
                .containsEntry("block_x", 128L).containsEntry("shared_mem", 256L);
        assertThat(launch.endNs()).isGreaterThanOrEqualTo(launch.startNs());
        assertThat(launch.clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
        assertThat(out.call("cuLaunchCooperativeKernel").args()).containsEntry("grid_x", 50L);
        assertThat(out.call("cuGraphLaunch").stream()).isEqualTo(s2);
        assertThat(out.call("cuMemcpyHtoDAsync").args()).containsEntry("bytes", 4096L).containsEntry("copy_kind", "HtoD");
        assertThat(out.call("cuMemsetD32Async").args()).containsEntry("bytes", 4096L);
        assertThat(out.call("cudaMemcpyAsync").args()).containsEntry("copy_kind", "HtoD");
        assertThat(out.call("cudaMemcpyAsync").stream()).isEqualTo(rs);
        assertThat(out.call("cuMemcpyDtoH").args()).containsEntry("copy_kind", "DtoH");
        assertThat(out.call("cuMemAlloc").args()).containsEntry("bytes", 4096L);
        assertThat(out.call("cuMemFree").args()).containsKey("address");
        assertThat(out.call("cuStreamSynchronize").stream()).isEqualTo(s1);
        assertThat(out.call("cuCtxSynchronize").stream()).isZero();
        assertThat(out.call("cuEventSynchronize").args()).containsEntry("event", event);
        assertThat(out.call("cuEventQuery").args()).containsEntry("kind", "event_query");
        assertThat(out.call("cuStreamDestroy").stream()).isEqualTo(s1);
        // cuBLAS work is attributed to the stream its handle was bound to
        assertThat(out.call("cublasSetStream").stream()).isEqualTo(rs);
        assertThat(out.call("cublasSgemm").stream()).isEqualTo(rs);
        assertThat(out.call("cublasSgemm").args()).containsEntry("m", 100L);

        // stream registry with priority and flags; the event dependency s1 -> s2
        Map<Long, StreamInfo> streams = out.streams.stream().collect(Collectors.toMap(StreamInfo::id, Function.identity(), (a, b) -> a));
        assertThat(streams.get(s2).priority()).isEqualTo(-2);
        assertThat(streams.get(s2).flags()).isEqualTo(1);
        assertThat(streams).containsKeys(s1, rs, 0L);
        assertThat(out.dependencies).anySatisfy(d -> {
            assertThat(d.event()).isEqualTo(event);
            assertThat(d.recordStream()).isEqualTo(s1);
            assertThat(d.waitStream()).isEqualTo(s2);
            assertThat(d.waitNs()).isGreaterThanOrEqualTo(d.recordNs());
        });

        // three iterations from Aorta.step(n), one metrics line each
        assertThat(out.markers).extracting(Marker::step).containsExactly(0L, 1L, 2L);
        assertThat(out.markers).allSatisfy(m -> assertThat(m.kind()).isEqualTo(Marker.Kind.ITERATION));
        assertThat(out.metrics).extracting(m -> m.get("step").asLong()).containsExactly(0L, 1L, 2L);
        JsonNode first = out.metrics.get(0);
        assertThat(first.get("profile").get("total_ms").asDouble()).isPositive();
        assertThat(first.get("profile").get("aorta").get("device_activity").asText()).isEqualTo("events(1/10)");
        assertThat(run.stderr()).contains("device activity: sampled event pairs around every 10th kernel launch "
                + "(CUPTI device activity needs JVM 22 or newer").doesNotContain("unsupported version", "WARNING");

        // sampled event pairs: every 10th launch measured on the device, joined by the agent's correlation id
        Map<Long, ApiCall> launchesByCorrelation = out.calls.stream().filter(c -> c.name().startsWith("cuLaunch"))
                .collect(Collectors.toMap(ApiCall::correlationId, Function.identity()));
        int launchCount = launchesByCorrelation.size();
        assertThat(out.activities).hasSizeBetween(launchCount / 10 - 2, launchCount / 10 + 2);
        assertThat(out.activities).allSatisfy(a -> {
            assertThat(a.clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
            ApiCall measured = launchesByCorrelation.get(a.correlationId());
            assertThat(measured).as("the launch a sample measured").isNotNull();
            assertThat(a.stream()).isEqualTo(measured.stream());
            // the fake device runs a kernel gridX µs; the pair spans it (plus the launch's submission gap
            // when the stream was idle, which event pairs cannot tell apart)
            long kernelNs = (Long) measured.args().get("grid_x") * 1000L;
            assertThat(a.durationNs()).isBetween(kernelNs - 1_000L, kernelNs + 50_000_000L);
            assertThat(a.endNs()).isGreaterThan(measured.startNs());
        });

        // the worker thread's 1000 launches: its own thread id, distinct correlation ids
        List<ApiCall> workerLaunches = out.calls("cuLaunchKernel").stream().filter(c -> c.thread() != launch.thread()).toList();
        assertThat(workerLaunches).hasSize(1000);
        assertThat(out.calls.stream().map(ApiCall::correlationId).distinct().count()).isEqualTo(out.calls.size());

        // JFR: the agent's own recording, events without stack traces
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Set<String> names = events.stream().map(e -> e.getEventType().getName()).collect(Collectors.toSet());
        assertThat(names).contains("aorta.KernelLaunch", "aorta.MemoryOperation", "aorta.StreamSync", "aorta.GpuCall",
                "aorta.Iteration");
        assertThat(events).filteredOn(e -> e.getEventType().getName().startsWith("aorta."))
                .allSatisfy(e -> assertThat(e.getStackTrace()).isNull());
        RecordedEvent kernel = events.stream().filter(e -> e.getEventType().getName().equals("aorta.KernelLaunch")
                && e.getLong("stream") == s1).findFirst().orElseThrow();
        assertThat(kernel.getString("grid")).isEqualTo("100x1x1");
        assertThat(kernel.getEventType().getCategoryNames()).containsExactly("aorta");
        assertThat(events.stream().filter(e -> e.getEventType().getName().equals("aorta.Iteration")).count()).isEqualTo(3);
    }

    @Test
    void onJava22Plus_cuptiDeviceActivityIsAnchoredAndFeedsTheOverlapMetrics(@TempDir Path dir) throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(false), "output=" + dir, "example.apps.CollectiveApp");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stderr()).contains("device activity: CUPTI");
        Outputs out = Outputs.read(dir, 0);
        // one CUPTI anchor; the others pair the host clock with the epoch (and boottime) for other profilers' traces
        assertThat(out.anchors.stream().filter(a -> a.from() == ClockDomain.CUPTI)).singleElement().satisfies(a ->
                assertThat(a.to()).isEqualTo(ClockDomain.HOST_MONOTONIC));
        assertThat(out.activities).isNotEmpty().allSatisfy(a -> assertThat(a.clock()).isEqualTo(ClockDomain.CUPTI));
        assertThat(out.activities).extracting(DeviceActivity::name).contains("gemm_forward",
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "sm90_xmma_gemm_f32f32");
        assertThat(out.activities).anySatisfy(a -> assertThat(a.queuedNs()).isNotEqualTo(DeviceActivity.UNKNOWN));
        // the own bindings: KernelLaunch#launch, Cublas#gemm (the handle's stream), NcclComm#allReduce
        long compute = run.address("compute");
        assertThat(out.calls("launch")).hasSize(8).allSatisfy(c -> assertThat(c.stream()).isEqualTo(compute));
        assertThat(out.call("launch").args()).containsEntry("grid_x", 20_000L).containsEntry("block_x", 256L);
        assertThat(out.calls("gemm")).hasSize(4);
        assertThat(out.call("gemm").stream()).isEqualTo(compute);
        assertThat(out.call("gemm").args()).containsEntry("m", 2154L).containsEntry("k", 2154L);
        assertThat(out.call("allReduce").args()).containsEntry("collective", "allReduce").containsEntry("op", "sum")
                .containsEntry("dtype", "float32").containsEntry("count", 30_000_000L).containsEntry("bytes", 120_000_000L)
                .containsEntry("communicator", 0xC0111L);
        assertThat(out.call("allReduce").stream()).isEqualTo(compute);
        // CUPTI was told the streams' addresses
        assertThat(run.lines("REGISTERED ")).singleElement().isNotEqualTo("0");

        // API records joined to the device activity they caused, by CUPTI's correlation id
        Map<Long, String> kernelByCorrelation = out.activities.stream()
                .collect(Collectors.toMap(DeviceActivity::correlationId, DeviceActivity::name));
        for (ApiCall c : out.calls("launch")) {
            assertThat(kernelByCorrelation.get((Long) c.args().get("cupti_correlation")))
                    .isIn("gemm_forward", "gemm_next_layer");
        }
        for (ApiCall c : out.calls("allReduce")) {
            assertThat(kernelByCorrelation.get((Long) c.args().get("cupti_correlation")))
                    .isEqualTo("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        }
        for (ApiCall c : out.calls("gemm")) {
            assertThat(kernelByCorrelation.get((Long) c.args().get("cupti_correlation"))).isEqualTo("sm90_xmma_gemm_f32f32");
        }
        assertThat(out.calls.stream().map(c -> c.args().get("cupti_correlation")).filter(java.util.Objects::nonNull)
                .distinct().count()).isEqualTo(16);

        // four iterations; on one stream nothing overlaps: compute 50 ms, comm 30 ms, overlap 0
        assertThat(out.metrics).hasSize(4);
        for (JsonNode m : out.metrics) {
            JsonNode aorta = m.get("profile").get("aorta");
            assertThat(aorta.get("device_activity").asText()).isEqualTo("cupti");
            assertThat(aorta.get("comm_ms").asDouble()).isBetween(29.9, 30.1);
            assertThat(aorta.get("compute_ms").asDouble()).isBetween(49.9, 50.2);
            assertThat(aorta.get("overlap_ms").asDouble()).isLessThan(0.05);
            assertThat(m.get("profile").get("overlap").get("overlap_ms").get("compute_allreduce").asDouble()).isLessThan(0.05);
        }
    }

    @Test
    void bindCollectives_immediateKeepsStreamOrder_nextSyncLetsLaterKernelsOverlap_resultsUnchanged(@TempDir Path dir)
            throws Exception {
        ChildJvm.Result plain = ChildJvm.run(ChildJvm.javaHome(false), "output=" + dir.resolve("plain"),
                "example.apps.CollectiveApp");
        ChildJvm.Result immediate = ChildJvm.run(ChildJvm.javaHome(false), "output=" + dir.resolve("immediate")
                + ",bind-collectives=true,comm-stream-priority=-3", "example.apps.CollectiveApp");
        ChildJvm.Result nextSync = ChildJvm.run(ChildJvm.javaHome(false), "output=" + dir.resolve("next")
                + ",bind-collectives=true,join=next-sync", "example.apps.CollectiveApp");
        for (ChildJvm.Result r : List.of(plain, immediate, nextSync)) {
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(r.lines("RESULT ")).isEqualTo(plain.lines("RESULT "));
        }
        long compute = immediate.address("compute");

        // immediate: record on compute, comm waits, all-reduce on comm, record on comm, compute waits — then the next GEMM
        Outputs imm = Outputs.read(dir.resolve("immediate"), 0);
        StreamInfo comm = imm.streams.stream().filter(s -> "comm".equals(s.role())).findFirst().orElseThrow();
        assertThat(comm.priority()).isEqualTo(-3);
        assertThat(comm.flags()).isEqualTo(1);
        assertThat(imm.call("allReduce").stream()).isEqualTo(comm.id());
        assertThat(imm.call("allReduce").args()).containsEntry("application_stream", compute);
        List<String> log = immediate.lines("LOG ");
        int ar = indexOf(log, "ncclDevKernel_AllReduce_Sum_f32_RING_LL@" + comm.id(), 0);
        assertThat(log.get(ar - 2)).startsWith("record ").endsWith("@" + compute);
        assertThat(log.get(ar - 1)).startsWith("wait " + comm.id() + "<-");
        assertThat(log.get(ar + 1)).startsWith("record ").endsWith("@" + comm.id());
        assertThat(log.get(ar + 2)).startsWith("wait " + compute + "<-");
        assertThat(log.get(ar + 3)).isEqualTo("gemm_next_layer@" + compute);
        assertThat(imm.dependencies).filteredOn(d -> d.recordStream() == comm.id() && d.waitStream() == compute).hasSize(4);
        assertThat(imm.dependencies).filteredOn(d -> d.recordStream() == compute && d.waitStream() == comm.id()).hasSize(4);

        // next-sync: the later kernels are enqueued before the join, which comes right before the synchronize
        List<String> next = nextSync.lines("LOG ");
        long nextComm = Outputs.read(dir.resolve("next"), 0).streams.stream().filter(s -> "comm".equals(s.role()))
                .findFirst().orElseThrow().id();
        int ar2 = indexOf(next, "ncclDevKernel_AllReduce_Sum_f32_RING_LL@" + nextComm, 0);
        assertThat(next.get(ar2 + 2)).isEqualTo("gemm_next_layer@" + compute);
        int join = indexOf(next, "wait " + compute + "<-", ar2);
        assertThat(next.get(join + 1)).isEqualTo("sync " + compute);

        // and the measured overlap rises: 0 on one stream, ~30 ms (the all-reduce hidden behind 30 ms of GEMMs)
        for (JsonNode m : Outputs.read(dir.resolve("immediate"), 0).metrics) {
            assertThat(m.get("profile").get("aorta").get("overlap_ms").asDouble()).isLessThan(0.05);
        }
        for (JsonNode m : Outputs.read(dir.resolve("next"), 0).metrics) {
            JsonNode aorta = m.get("profile").get("aorta");
            assertThat(aorta.get("overlap_ms").asDouble()).isBetween(25.0, 30.1);
            assertThat(aorta.get("comm_overlap_pct").asDouble()).isGreaterThan(80);
            assertThat(m.get("profile").get("overlap").get("per_stream_ms").has("comm")).isTrue();
        }
    }

    @Test
    void onJava22Plus_bothHostClocksGiveNanoTimeTimestamps(@TempDir Path dir) throws Exception {
        String cpu = Files.readString(Path.of("/proc/cpuinfo"));
        boolean invariantTsc = cpu.contains(" constant_tsc") && cpu.contains(" nonstop_tsc")
                && System.getProperty("os.arch").equals("amd64");
        for (String clock : List.of("tsc", "nanotime")) {
            Path out = dir.resolve(clock);
            ChildJvm.Result run = ChildJvm.runWith(ChildJvm.javaHome(false), List.of("--enable-native-access=ALL-UNNAMED"),
                    "output=" + out + ",device-activity=none,clock=" + clock, "example.apps.ClockApp");
            assertThat(run.exitCode()).as(run.stderr()).isZero();
            if (clock.equals("tsc") && invariantTsc) {
                assertThat(run.stderr()).contains("host clock: tsc");
            } else if (clock.equals("tsc")) {
                assertThat(run.stderr()).contains("host clock: System.nanoTime (clock=tsc refused: ");
            } else {
                assertThat(run.stderr()).contains("host clock: System.nanoTime (clock=nanotime)");
            }
            long t0 = run.number("T0"), t1 = run.number("T1");
            Outputs o = Outputs.read(out, 0);
            assertThat(o.calls).as(clock).hasSize(1 + ClockApp.STEPS * 100).allSatisfy(c -> {
                assertThat(c.startNs()).isBetween(t0, t1);
                assertThat(c.endNs()).isBetween(c.startNs(), t1);
            });
            assertThat(o.markers).as(clock).hasSize(ClockApp.STEPS);
            for (Marker m : o.markers) {
                // the marker starts inside the Aorta.step call, as the application itself timed it: a bound no load
                // can break (a descheduled call only widens it), yet on an idle step it is a few microseconds, so a
                // TSC conversion off by more than that, or a timestamp in the wrong clock, falls outside
                long called = run.number("STEP " + m.step());
                long returned = run.number("RETURNED " + m.step());
                assertThat(m.startNs()).as(clock + " step " + m.step() + ", call took " + (returned - called) + " ns")
                        .isBetween(called, returned);
            }
        }
    }

    @Test
    void theAgentsOwnJfrRecordingIsWrittenAtExitWithoutAnError(@TempDir Path dir) throws Exception {
        for (boolean java17 : List.of(true, false)) {
            Path jfr = dir.resolve(java17 + ".jfr");
            ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(java17), "output=" + dir.resolve("out" + java17) + ",jfr=" + jfr,
                    "example.apps.JCudaApp", "10");
            assertThat(run.exitCode()).as(run.stderr()).isZero();
            assertThat(run.stderr()).doesNotContain("ERROR", "already stopped");
            assertThat(RecordingFile.readAllEvents(jfr)).extracting(e -> e.getEventType().getName())
                    .contains("aorta.KernelLaunch", "aorta.Iteration");
        }
    }

    @Test
    void eventsGoIntoTheApplicationsOwnRecordingToo(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("app.jfr");
        Process p = ChildJvm.startWith(ChildJvm.javaHome(true), List.of("-XX:StartFlightRecording:filename=" + jfr),
                "output=" + dir + ",sinks=jfr", "example.apps.JCudaApp", "10");
        ChildJvm.Result run = ChildJvm.finish(p);
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        assertThat(events).extracting(e -> e.getEventType().getName())
                .contains("aorta.KernelLaunch", "aorta.Iteration", "aorta.StreamSync");
        // sinks=jfr: no files
        assertThat(dir.resolve("rank_0_activity.jsonl")).doesNotExist();
    }

    @Test
    void afterAKillEveryLineWrittenIsCompleteOrReportedAsTheTruncatedLast(@TempDir Path dir) throws Exception {
        Process p = ChildJvm.start(ChildJvm.javaHome(true), "output=" + dir, "example.apps.JCudaApp", "forever");
        assertThat(new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine())
                .isEqualTo("RUNNING");
        Path activity = dir.resolve("rank_0_activity.jsonl");
        Path metrics = dir.resolve("rank_0_metrics.jsonl");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while ((!Files.exists(metrics) || Files.readAllLines(metrics).size() < 3) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        p.destroyForcibly().waitFor();   // SIGKILL: no shutdown hook, no final flush

        Outputs out = Outputs.read(dir, 0);
        assertThat(out.calls("cuLaunchKernel")).hasSizeGreaterThan(100);
        assertThat(out.markers).hasSizeGreaterThanOrEqualTo(3);
        assertThat(out.malformed).hasSizeLessThanOrEqualTo(1);
        if (!out.malformed.isEmpty()) {
            long lines = Files.readAllLines(activity).size();
            assertThat(out.malformed.get(0)).startsWith(lines + ":");
        }
        assertThat(out.metrics).hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(m -> assertThat(m.get("profile").get("total_ms").asDouble()).isPositive());
    }

    @Test
    void iterationMethodOptionDelimitsIterationsWithoutMarkers(@TempDir Path dir) throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true),
                "output=" + dir + ",rank=2,iteration-method=example.apps.CollectiveApp#trainStep", "example.apps.CollectiveApp",
                "method");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        Outputs out = Outputs.read(dir, 2);
        assertThat(out.metrics).allSatisfy(m -> assertThat(m.get("rank").asInt()).isEqualTo(2));
        assertThat(out.markers).extracting(Marker::step).containsExactly(0L, 1L, 2L, 3L);
        assertThat(out.markers).allSatisfy(m -> assertThat(m.endNs() - m.startNs()).isGreaterThan(70_000_000L));
    }

    @Test
    void unknownOptionIsNamedWithTheValidOnes_andTheApplicationRunsUnprofiled() throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "outptu=/tmp/x", "example.apps.JCudaApp");
        assertThat(run.exitCode()).isZero();
        assertThat(run.lines("RESULT ")).isEqualTo(withoutAgent.lines("RESULT "));
        assertThat(run.stderr()).contains("unknown option 'outptu'", "valid options: output, rank,", "bind-collectives",
                "agent not started");
        assertThat(run.stderr().lines()).as(run.stderr()).hasSize(1);
    }

    @Test
    void aBadValueIsOneLineNamingOptionValueAndExpectation_theTableOnlyOnRequest() throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "join=later", "example.apps.JCudaApp");
        assertThat(run.exitCode()).isZero();
        assertThat(run.lines("RESULT ")).isEqualTo(withoutAgent.lines("RESULT "));
        assertThat(run.stderr().lines()).as(run.stderr()).singleElement().asString()
                .contains("option 'join': expected immediate, next-sync or iteration-end, got 'later'",
                        "agent not started", "docs/agent.md");

        ChildJvm.Result help = ChildJvm.run(ChildJvm.javaHome(true), "help", "example.apps.JCudaApp");
        assertThat(help.exitCode()).isZero();
        assertThat(help.lines("RESULT ")).isEqualTo(withoutAgent.lines("RESULT "));
        for (AgentOptions.Option o : AgentOptions.Option.values()) {
            assertThat(help.stderr()).contains("  " + o.key() + " ");
        }
        assertThat(help.stderr()).contains("agent not started").doesNotContain("ERROR");
    }

    @Test
    void unwritableOutputDirectoryIsOneClearError_andTheApplicationKeepsRunning(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "output=" + file.resolve("sub"), "example.apps.JCudaApp");
        assertThat(run.exitCode()).isZero();
        assertThat(run.lines("RESULT ")).isEqualTo(withoutAgent.lines("RESULT "));
        assertThat(run.stderr()).containsOnlyOnce("cannot write to output directory").contains("option 'output'");
        assertThat(run.stderr()).doesNotContain("Exception in thread");
    }

    @Test
    void fullBuffersDropAndCount_neverBlockOrFailTheApplication(@TempDir Path dir) throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "output=" + dir + ",buffer-records=64,drain-interval-ms=1000",
                "example.apps.JCudaApp", "20000");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stderr()).containsPattern("\\d+ call records were dropped");
        Outputs out = Outputs.read(dir, 0);
        assertThat(out.malformed).isEmpty();
        assertThat(out.calls("cuLaunchKernel").size()).isLessThan(20_003);
    }

    @Test
    void withoutAnyGpuLibraryTheAgentSaysSoAndStaysInert(@TempDir Path dir) throws Exception {
        Path app = Files.writeString(dir.resolve("Hello.java"), """
                public class Hello {
                    public static void main(String[] a) {
                        dev.aorta.api.Aorta.step(0);
                        dev.aorta.api.Aorta.finish();
                        System.out.println("RESULT hello");
                    }
                }
                """);
        Process p = new ProcessBuilder(ChildJvm.javaHome(true).resolve("bin/java").toString(),
                "-javaagent:" + ChildJvm.AGENT_JAR.toAbsolutePath() + "=output=" + dir.resolve("out") + ",device-activity=none",
                "-cp", locationOfApi(), app.toString()).start();
        ChildJvm.Result run = ChildJvm.finish(p);
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("RESULT hello");
        assertThat(run.stderr()).contains("not on the class path (idle): jcuda-driver, jcuda-runtime, jcublas2, aorta-gpu");
        assertThat(run.stderr().lines().filter(l -> l.startsWith("[aorta]")).count()).isEqualTo(2);
        Outputs out = Outputs.read(dir.resolve("out"), 0);
        assertThat(out.calls).isEmpty();
        assertThat(out.markers).hasSize(1);
    }

    @Test
    void anUnsupportedVersionOfALibraryIsLeftAloneWithOneLine(@TempDir Path dir) throws Exception {
        // an "older" aorta-gpu KernelLaunch without the fields the advice reads
        Path app = Files.writeString(dir.resolve("OldApp.java"), """
                package dev.aorta.gpu.cuda;
                public class OldApp {
                    public static void main(String[] a) {
                        new KernelLaunch().launch();
                        System.out.println("RESULT launched");
                    }
                }
                class KernelLaunch {
                    void launch() {
                    }
                }
                """);
        Process p = new ProcessBuilder(ChildJvm.javaHome(true).resolve("bin/java").toString(),
                "-javaagent:" + ChildJvm.AGENT_JAR.toAbsolutePath() + "=output=" + dir.resolve("out"),
                "-cp", ChildJvm.classPath(), app.toString()).start();
        ChildJvm.Result run = ChildJvm.finish(p);
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("RESULT launched");
        assertThat(run.stderr()).containsOnlyOnce("aorta-gpu: unsupported version of dev.aorta.gpu.cuda.KernelLaunch "
                + "(missing field function, field gridX");
    }

    @Test
    void attachedLate_alreadyLoadedJCudaClassesAreRetransformed(@TempDir Path dir) throws Exception {
        Path go = dir.resolve("go");
        Process p = ChildJvm.start(ChildJvm.javaHome(false), null, "example.apps.JCudaApp", "10", go.toString());
        String ready = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
        assertThat(ready).isEqualTo("READY");
        com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(String.valueOf(p.pid()));
        try {
            vm.loadAgent(ChildJvm.AGENT_JAR.toAbsolutePath().toString(), "output=" + dir.resolve("out"));
        } finally {
            vm.detach();
        }
        Files.writeString(go, "go");
        ChildJvm.Result run = ChildJvm.finish(p);
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        Outputs out = Outputs.read(dir.resolve("out"), 0);
        assertThat(out.calls("cuLaunchKernel")).hasSize(3 + 10);
        assertThat(out.markers).hasSize(3);
    }

    @Test
    void lateAttachWithABadOptionFailsTheAttach_notTheApplication(@TempDir Path dir) throws Exception {
        Path go = dir.resolve("go");
        Process p = ChildJvm.start(ChildJvm.javaHome(false), null, "example.apps.JCudaApp", "10", go.toString());
        new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
        com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(String.valueOf(p.pid()));
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                    vm.loadAgent(ChildJvm.AGENT_JAR.toAbsolutePath().toString(), "join=later"))
                    .isInstanceOf(com.sun.tools.attach.AgentInitializationException.class);
        } finally {
            vm.detach();
        }
        Files.writeString(go, "go");
        ChildJvm.Result run = ChildJvm.finish(p);
        assertThat(run.exitCode()).isZero();
        assertThat(run.stderr()).contains("option 'join': expected immediate, next-sync or iteration-end, got 'later'");
    }

    private static int indexOf(List<String> log, String prefix, int from) {
        for (int i = from; i < log.size(); i++) {
            if (log.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no '" + prefix + "' after line " + from + " in\n" + String.join("\n", log));
    }

    private static String locationOfApi() throws Exception {
        return Path.of(dev.aorta.api.Aorta.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
