package dev.aorta.trainer.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.trainer.metrics.StepRecord.DeviceTimeSource;
import dev.aorta.trainer.telemetry.TelemetrySummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.aorta.trainer.schedule.StreamRole.AUX;
import static dev.aorta.trainer.schedule.StreamRole.COMPUTE;
import static dev.aorta.trainer.schedule.StreamRole.REDUCESCATTER;
import static org.assertj.core.api.Assertions.assertThat;

class MetricsJsonlWriterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = 1_000_000;

    @TempDir
    Path dir;

    /** A step as the executor will report it; {@code extraRanges} makes the line as long as wanted. */
    static StepRecord step(int rank, int step, int extraRanges) {
        List<DeviceRange> ranges = new ArrayList<>(List.of(
                new DeviceRange(AUX, "epoch0_step" + step + "_prefetch", 0, MS, false, Map.of()),
                new DeviceRange(COMPUTE, "epoch0_step" + step + "_forward", MS, 6 * MS, false, Map.of()),
                new DeviceRange(REDUCESCATTER, "reduce_scatter_tensor", 4 * MS, 8 * MS, true,
                        Map.of("function", "reduce_scatter_tensor", "bytes", 1024))));
        for (int i = 0; i < extraRanges; i++) {
            ranges.add(new DeviceRange(COMPUTE, "epoch0_step" + step + "_kernel" + i, 6 * MS + i, 6 * MS + i + 1,
                    false, Map.of()));
        }
        StepProfile profile = new StepProfile(step, 10 * MS, ranges,
                List.of(new DeviceMarker(COMPUTE, "epoch0_step" + step + "_end", 9 * MS, Map.of())));
        return new StepRecord(rank, 2, 0, step, step, 0.69, 1.5, 3e-4, profile, 11.25,
                DeviceTimeSource.CUDA_EVENTS);
    }

    @Test
    void aLineWithTelemetryEndsWithItsSummaryAndLeavesOutWhatTheDeviceDoesNotOffer() throws IOException {
        StepRecord plain = step(0, 3, 0);
        TelemetrySummary t = new TelemetrySummary(2, 4.5, 1980, 2619, 420.5, 431, 55, 56, 97, 41, Double.NaN,
                Double.NaN);
        StepRecord withTelemetry = new StepRecord(plain.rank(), plain.worldSize(), plain.epoch(), plain.step(),
                plain.globalStep(), plain.loss(), plain.gradNorm(), plain.lr(), plain.profile(), plain.stepTimeMs(),
                plain.deviceTimeSource(), t);
        JsonNode n = JSON.readTree(MetricsJsonlWriter.serialize(withTelemetry));
        assertThat(iterable(n.fieldNames())).endsWith("device_time_source", "telemetry");
        JsonNode tn = n.get("telemetry");
        assertThat(iterable(tn.fieldNames())).containsExactly("samples", "sample_age_ms", "sm_clock_mhz",
                "memory_clock_mhz", "power_w", "power_max_w", "temperature_c", "temperature_max_c",
                "gpu_utilization_pct", "memory_utilization_pct");
        assertThat(tn.get("power_w").asDouble()).isEqualTo(420.5);
        assertThat(tn.get("samples").asInt()).isEqualTo(2);
    }

    @Test
    void aLineHasAortasSchemaAndOurFields() throws IOException {
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(dir, 1)) {
            w.write(step(1, 0, 0));
            w.write(step(1, 1, 0));
            assertThat(w.file().getFileName().toString()).isEqualTo("rank_01_metrics.jsonl");
        }
        List<String> lines = Files.readAllLines(dir.resolve("rank_01_metrics.jsonl"));
        assertThat(lines).hasSize(2);
        JsonNode n = JSON.readTree(lines.get(1));
        assertThat(iterable(n.fieldNames())).containsExactly("rank", "world_size", "epoch", "step", "global_step",
                "loss", "grad_norm", "lr", "profile", "step_time_ms", "device_time_source");
        assertThat(n.get("device_time_source").asText()).isEqualTo("cuda_events");
        JsonNode p = n.get("profile");
        assertThat(iterable(p.fieldNames())).containsExactly("index", "total_ms", "ranges", "markers", "overlap");
        assertThat(p.get("total_ms").asDouble()).isEqualTo(10.0);
        JsonNode range = p.get("ranges").get(2);
        assertThat(iterable(range.fieldNames())).containsExactly("stream", "tag", "start_ms", "end_ms",
                "duration_ms", "metadata");
        assertThat(range.get("stream").asText()).isEqualTo("reducescatter");
        assertThat(range.get("duration_ms").asDouble()).isEqualTo(4.0);
        assertThat(range.get("metadata").get("function").asText()).isEqualTo("reduce_scatter_tensor");
        assertThat(iterable(p.get("markers").get(0).fieldNames())).containsExactly("stream", "tag", "time_ms",
                "metadata");
        JsonNode o = p.get("overlap");
        assertThat(iterable(o.fieldNames())).containsExactly("per_stream_ms", "overlap_ms", "active_segments",
                "utilization");
        assertThat(iterable(o.get("per_stream_ms").fieldNames())).containsExactly("compute", "allreduce",
                "reducescatter", "aux");
        assertThat(o.get("overlap_ms").get("compute_comm").asDouble()).isEqualTo(2.0);
        assertThat(o.get("overlap_ms").get("compute_reducescatter").asDouble()).isEqualTo(2.0);
        assertThat(o.get("overlap_ms").get("idle").asDouble()).isEqualTo(2.0);
        assertThat(o.get("active_segments").get(0).get("active_streams").get(0).asText()).isEqualTo("aux");
    }

    @Test
    void theAnalyzerReadsTheFileAsAnAortaTrainerLog() throws IOException {
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(dir, 3)) {
            for (int s = 0; s < 4; s++) {
                w.write(step(3, s, 0));
            }
        }
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(dir.resolve("rank_03_metrics.jsonl")));
        assertThat(set.warnings()).isEmpty();
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.rank()).isEqualTo(3);
        assertThat(r.worldSize()).isEqualTo(2);
        assertThat(r.markers()).hasSize(4);
    }

    @Test
    void openingStartsTheFileAfresh() throws IOException {
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(dir, 0)) {
            w.write(step(0, 0, 0));
            w.write(step(0, 1, 0));
        }
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(dir, 0)) {
            w.write(step(0, 0, 0));
        }
        assertThat(Files.readAllLines(MetricsJsonlWriter.fileFor(dir, 0))).hasSize(1);
    }

    @Test
    void aKilledWriterLeavesOnlyCompleteLinesBeforeItsLastWrite() throws Exception {
        Path out = dir.resolve("killed");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), MetricsWriterChild.class.getName(), out.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        Path file = MetricsJsonlWriter.fileFor(out, 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        // lines of ~40 KB: many pages per write, so the kill can land inside one
        while ((!Files.exists(file) || Files.size(file) < 8 << 20) && System.nanoTime() < deadline
                && child.isAlive()) {
            Thread.sleep(5);
        }
        assertThat(child.isAlive()).as("the child writes until killed; its log: %s", dir.resolve("child.log"))
                .isTrue();
        child.destroyForcibly().waitFor();

        String text = Files.readString(file);
        int lastNewline = text.lastIndexOf('\n');
        String[] complete = text.substring(0, lastNewline + 1).split("\n");
        assertThat(complete.length).isGreaterThan(100);
        for (int i = 0; i < complete.length; i++) {
            JsonNode n = JSON.readTree(complete[i]);
            assertThat(n.get("step").asInt()).as("line %d", i + 1).isEqualTo(i);
            assertThat(n.get("profile").get("overlap").has("utilization")).isTrue();
        }
        // at most the beginning of one more line follows, which readers drop
        String rest = text.substring(lastNewline + 1);
        assertThat(rest).doesNotContain("\n");
        if (!rest.isEmpty()) {
            assertThat(rest).startsWith("{\"rank\":0,");
        }
    }

    private static <T> Iterable<T> iterable(Iterator<T> it) {
        return () -> it;
    }
}
