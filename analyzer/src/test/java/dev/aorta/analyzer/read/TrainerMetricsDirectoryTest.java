package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.core.metric.TrainerRunSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TrainerMetricsDirectoryTest {

    @Test
    void readsTheRecordedOverlapBlockOfAortasLinesAndSkipsACutLastLine(@TempDir Path dir) throws IOException {
        // AORTA's schema (synthetic, see aorta/README.md): compute_comm 2, 2, 1; compute 6, 7, 6; a 4th line cut short
        Files.copy(Fixtures.resource("aorta/rank_1_metrics.jsonl"), dir.resolve("rank_1_metrics.jsonl"));
        Files.writeString(dir.resolve("notes.jsonl"), "not read\n");
        TrainerMetricsDirectory.Steps s = TrainerMetricsDirectory.read(dir);
        assertThat(s.files()).extracting(f -> f.getFileName().toString()).containsExactly("rank_1_metrics.jsonl");
        assertThat(s.steps()).containsExactly(
                new TrainerRunSummary.Step(2.5, 2.0, 6.0, 2.0, 0.0),
                new TrainerRunSummary.Step(2.4, 2.0, 7.0, 2.0, 0.0),
                new TrainerRunSummary.Step(2.3, 1.0, 6.0, 0.0, 1.0));
        assertThat(s.warnings()).singleElement().asString().contains("rank_1_metrics.jsonl:4", "no newline");
    }

    @Test
    void missingOverlapFieldsCountAsZeroAndANullOrNanLossAsNone(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("rank_00_metrics.jsonl"), """
                {"rank":0,"loss":null,"profile":{"overlap":{"per_stream_ms":{"aux":1.0},"overlap_ms":{"idle":3.0}}}}
                {"rank":0,"loss":NaN,"profile":{"overlap":{"per_stream_ms":{"compute":4.5},"overlap_ms":{"compute_comm":0.5}}}}
                """);
        assertThat(TrainerMetricsDirectory.read(dir).steps()).containsExactly(
                new TrainerRunSummary.Step(Double.NaN, 0.0, 0.0, 0.0, 0.0),
                new TrainerRunSummary.Step(Double.NaN, 0.5, 4.5, 0.0, 0.0));
    }

    @Test
    void aLineWithoutTheOverlapBlockIsAnErrorNamingFileAndLine(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("rank_0_metrics.jsonl"), """
                {"rank":0,"loss":1.0,"profile":{"overlap":{"per_stream_ms":{},"overlap_ms":{}}}}
                {"rank":0,"loss":1.0,"profile":{"total_ms":3.0}}
                """);
        assertThatThrownBy(() -> TrainerMetricsDirectory.read(dir))
                .hasMessageContaining("rank_0_metrics.jsonl:2: no profile.overlap.overlap_ms and"
                        + " profile.overlap.per_stream_ms objects");
        Files.writeString(dir.resolve("rank_0_metrics.jsonl"), "{\"rank\":0,\n{}\n");
        assertThatThrownBy(() -> TrainerMetricsDirectory.read(dir))
                .hasMessageContaining("rank_0_metrics.jsonl:1: not a JSON metrics line");
    }

    @Test
    void knowsWhetherADirectoryHoldsMetricsFiles(@TempDir Path dir) throws IOException {
        assertThat(TrainerMetricsDirectory.holdsMetrics(dir)).isFalse();
        Files.writeString(dir.resolve("rank_3_metrics.jsonl"), "");
        assertThat(TrainerMetricsDirectory.holdsMetrics(dir)).isTrue();
    }
}
