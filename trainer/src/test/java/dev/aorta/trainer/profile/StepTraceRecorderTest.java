package dev.aorta.trainer.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class StepTraceRecorderTest {
    private static final long COMPUTE = 0x1000;
    private static final long AUX = 0x2000;
    private static final Map<Long, StreamRole> ROLES = Map.of(COMPUTE, StreamRole.COMPUTE, AUX, StreamRole.AUX);

    @TempDir
    Path out;

    /** Step s: start marker, an H2D copy on aux, a GEMM named after the step on compute, end marker; 1 ms apart. */
    private static List<DeviceActivity> step(long s) {
        long t = 1_000_000_000L + s * 1_000_000;
        return List.of(
                a(ActivityKind.MEMSET, "Memset", COMPUTE, t, t + 1_000),
                a(ActivityKind.MEMCPY, "Memcpy HtoD", AUX, t + 2_000, t + 100_000),
                a(ActivityKind.KERNEL, "gemm_of_step_" + s, COMPUTE, t + 100_000, t + 800_000),
                a(ActivityKind.MEMSET, "Memset", COMPUTE, t + 900_000, t + 901_000));
    }

    private static DeviceActivity a(ActivityKind kind, String name, long stream, long start, long end) {
        return new DeviceActivity(kind, name, 0, 0, stream, start, end, 7, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, null, null, 0, ClockDomain.CUPTI);
    }

    private List<Path> run(StepTraceRecorder r, int steps) throws IOException {
        List<Path> written = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            Path p = r.step(s, step(s));
            if (p != null) {
                written.add(p);
            }
        }
        Path last = r.finish();
        if (last != null) {
            written.add(last);
        }
        return written;
    }

    private static List<JsonNode> events(Path trace) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        new ObjectMapper().readTree(trace.toFile()).get("traceEvents").forEach(out::add);
        return out;
    }

    private static List<String> names(Path trace, String ph) throws IOException {
        return events(trace).stream().filter(e -> e.get("ph").asText().equals(ph))
                .map(e -> e.get("name").asText() + (ph.equals("M") ? "=" + e.get("args").get("name").asText() : ""))
                .toList();
    }

    @Test
    void theDefaultWindowWritesStepsTwoAndThreeOnceWithTheirRecordsAndIterationSlices() throws IOException {
        StepTraceRecorder r = new StepTraceRecorder(new ProfilingWindow(1, 1, 2, 1), out, "trace.json", 3, 0, ROLES);
        List<Path> written = run(r, 8);
        assertThat(written).containsExactly(out.resolve("torch_profiler/rank3/trace_step3.json"));
        Path trace = written.getFirst();
        assertThat(names(trace, "X")).filteredOn(n -> n.startsWith("gemm"))
                .containsExactlyInAnyOrder("gemm_of_step_2", "gemm_of_step_3");
        assertThat(names(trace, "X")).filteredOn(n -> n.startsWith("step ")).containsExactlyInAnyOrder("step 2",
                "step 3");
        assertThat(names(trace, "M")).contains("process_name=rank 3", "thread_name=stream compute",
                "thread_name=stream aux");
        JsonNode step2 = events(trace).stream().filter(e -> e.get("name").asText().equals("step 2")).findFirst()
                .orElseThrow();
        assertThat(step2.get("dur").asDouble()).isEqualTo(901.0); // from the start marker to the end marker, in µs
        assertThat(trace.resolveSibling("trace_step3.json.partial")).doesNotExist();
    }

    @Test
    void aortaAnalyzeReadsTheTraceWithItsRankStepsKindsAndStreamRoles() throws IOException {
        StepTraceRecorder r = new StepTraceRecorder(new ProfilingWindow(1, 1, 2, 1), out, "trace.json", 3, 0, ROLES);
        run(r, 8);
        Path trace = out.resolve("torch_profiler/rank3/trace_step3.json");
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(trace));
        assertThat(set.ranks()).extracting(RankTrace::rank).containsExactly(3);
        RankTrace rank = set.ranks().iterator().next();
        assertThat(rank.activities()).hasSize(8);
        assertThat(rank.activities()).extracting(DeviceActivity::kind).containsOnly(ActivityKind.MEMSET,
                ActivityKind.MEMCPY, ActivityKind.KERNEL);
        assertThat(rank.markers()).extracting(Marker::name).containsExactly("step 2", "step 3");
        assertThat(rank.markers()).extracting(Marker::step).containsExactly(2L, 3L);
        assertThat(rank.streams()).extracting(StreamInfo::role).containsExactlyInAnyOrder("compute", "aux");
    }

    @Test
    void everyCycleGetsItsOwnFileAndACycleCutShortByTheEndIsWrittenToo() throws IOException {
        StepTraceRecorder r = new StepTraceRecorder(new ProfilingWindow(0, 0, 3, 0), out, "run.trace", 0, 0, ROLES);
        List<Path> written = run(r, 7);
        Path dir = out.resolve("torch_profiler/rank0");
        assertThat(written).containsExactly(dir.resolve("run_step2.trace"), dir.resolve("run_step5.trace"),
                dir.resolve("run_step6.trace"));
        assertThat(names(written.get(2), "X")).filteredOn(n -> n.startsWith("gemm")).containsExactly("gemm_of_step_6");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".trace"))).hasSize(3);
        }
    }

    @Test
    void stepsOutsideTheWindowWriteNothing() throws IOException {
        StepTraceRecorder r = new StepTraceRecorder(new ProfilingWindow(10, 0, 1, 1), out, "trace.json", 0, 0, ROLES);
        assertThat(run(r, 5)).isEmpty();
        assertThat(out.resolve("torch_profiler")).doesNotExist();
    }
}
