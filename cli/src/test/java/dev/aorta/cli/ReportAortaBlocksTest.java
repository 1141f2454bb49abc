package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.trainer.metrics.DeviceRange;
import dev.aorta.trainer.metrics.MetricsJsonlWriter;
import dev.aorta.trainer.metrics.StepProfile;
import dev.aorta.trainer.metrics.StepRecord;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code aorta report} on two trainer runs: AORTA's {@code datasets} and {@code comparison} blocks, computed by hand
 * below, next to our per-step statistics. The reference run is written in AORTA's schema by hand, the candidate
 * by our trainer's writer.
 */
class ReportAortaBlocksTest {
    private static final double EPS = 1e-9;

    /**
     * AORTA's schema. Step 0: compute [0, 10] ms, all-reduce [9, 11]: overlap 1 of compute 10 (ratio 0.1). Step 1:
     * compute [0, 2], all-reduce [1, 3]: overlap 1 of 2 (ratio 0.5).
     */
    private static final String AORTA_RUN = line(0, 0.5, 12, 10, 9, 11, 1) + line(1, 0.7, 4, 2, 1, 3, 1);

    private static String line(int step, double loss, double total, double computeEnd, double commStart,
                               double commEnd, double overlap) {
        return ("{\"rank\": 0, \"world_size\": 1, \"epoch\": 0, \"step\": %d, \"global_step\": %d, \"loss\": %s,"
                + " \"grad_norm\": 1.0, \"lr\": 0.0001, \"profile\": {\"index\": %d, \"total_ms\": %s, \"ranges\": ["
                + "{\"stream\": \"compute\", \"tag\": \"epoch0_step%d_forward\", \"start_ms\": 0.0, \"end_ms\": %s,"
                + " \"duration_ms\": %s, \"metadata\": {}},"
                + " {\"stream\": \"allreduce\", \"tag\": \"all_reduce\", \"start_ms\": %s, \"end_ms\": %s,"
                + " \"duration_ms\": %s, \"metadata\": {\"function\": \"all_reduce\"}}], \"markers\": [],"
                + " \"overlap\": {\"per_stream_ms\": {\"compute\": %s, \"allreduce\": %s},"
                + " \"overlap_ms\": {\"compute_allreduce\": %s, \"compute_reducescatter\": 0.0, \"compute_comm\": %s,"
                + " \"idle\": 0.0}, \"active_segments\": [], \"utilization\": {}}}}\n")
                .formatted(step, step, loss, step, total, step, computeEnd, computeEnd, commStart, commEnd,
                        commEnd - commStart, computeEnd, commEnd - commStart, overlap, overlap);
    }

    /**
     * Our trainer's writer, which computes the overlap block from the ranges. Step 0: compute [0, 4] ms,
     * reduce-scatter [1, 3]: overlap 2 of 4 (0.5). Step 1: compute [0, 8], reduce-scatter [7, 9]: overlap 1 of 8
     * (0.125).
     */
    private static void writeOurRun(Path dir) throws IOException {
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(dir, 0)) {
            w.write(step(0, 0.4, 4, 1, 3));
            w.write(step(1, 0.2, 8, 7, 9));
        }
    }

    private static StepRecord step(int step, double loss, long computeEndMs, long rsStartMs, long rsEndMs) {
        long ms = 1_000_000;
        StepProfile p = new StepProfile(step, 10 * ms, List.of(
                new DeviceRange(StreamRole.COMPUTE, "gemm", 0, computeEndMs * ms, false, Map.of()),
                new DeviceRange(StreamRole.REDUCESCATTER, "reduce_scatter", rsStartMs * ms, rsEndMs * ms, true,
                        Map.of())), List.of());
        return new StepRecord(0, 1, 0, step, step, loss, 1.0, 3e-4, p, 10.5, StepRecord.DeviceTimeSource.CUPTI);
    }

    @Test
    void writesAortasDatasetsAndComparisonWithItsRatioOfSums(@TempDir Path tmp) throws IOException {
        Path aorta = Files.createDirectories(tmp.resolve("aorta"));
        Files.writeString(aorta.resolve("rank_00_metrics.jsonl"), AORTA_RUN);
        Path ours = Files.createDirectories(tmp.resolve("ours"));
        writeOurRun(ours);
        Path out = tmp.resolve("report");
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", aorta.toString(), "--label", "amd",
                "--log-dir", ours.toString(), "--label", "nvidia", "--output", out.toString(),
                "--reference", "amd", "--candidate", "nvidia");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());

        JsonNode amd = summary.path("datasets").path("amd");
        assertThat(amd.path("count").asInt()).isEqualTo(2);
        assertThat(amd.path("mean_loss").asDouble()).isCloseTo(0.6, within(EPS));
        assertThat(amd.path("mean_overlap_ms").asDouble()).isCloseTo(1.0, within(EPS));
        assertThat(amd.path("mean_compute_ms").asDouble()).isCloseTo(6.0, within(EPS));
        assertThat(amd.path("mean_allreduce_overlap_ms").asDouble()).isCloseTo(1.0, within(EPS));
        assertThat(amd.path("mean_reducescatter_overlap_ms").asDouble()).isCloseTo(0.0, within(EPS));
        // AORTA's overlap_ratio: Σ overlap / Σ compute = 2 / 12, not the mean of the step ratios (0.1 + 0.5) / 2
        assertThat(amd.path("overlap_ratio").asDouble()).isCloseTo(2.0 / 12.0, within(EPS));
        assertThat(summary.path("labels").path("amd").path("metrics").path("aorta_overlap_ratio").path("mean")
                .asDouble()).isCloseTo(0.3, within(EPS));

        JsonNode nvidia = summary.path("datasets").path("nvidia");
        assertThat(nvidia.path("count").asInt()).isEqualTo(2);
        assertThat(nvidia.path("mean_loss").asDouble()).isCloseTo(0.3, within(EPS));
        assertThat(nvidia.path("mean_overlap_ms").asDouble()).isCloseTo(1.5, within(EPS));
        assertThat(nvidia.path("mean_compute_ms").asDouble()).isCloseTo(6.0, within(EPS));
        assertThat(nvidia.path("mean_allreduce_overlap_ms").asDouble()).isCloseTo(0.0, within(EPS));
        assertThat(nvidia.path("mean_reducescatter_overlap_ms").asDouble()).isCloseTo(1.5, within(EPS));
        assertThat(nvidia.path("overlap_ratio").asDouble()).isCloseTo(3.0 / 12.0, within(EPS));
        assertThat(summary.path("labels").path("nvidia").path("metrics").path("aorta_overlap_ratio").path("mean")
                .asDouble()).isCloseTo((0.5 + 0.125) / 2, within(EPS));

        JsonNode c = summary.path("comparison");
        assertThat(c.path("reference_overlap_ratio").asDouble()).isCloseTo(2.0 / 12.0, within(EPS));
        assertThat(c.path("candidate_overlap_ratio").asDouble()).isCloseTo(3.0 / 12.0, within(EPS));
        assertThat(c.path("ratio_delta").asDouble()).isCloseTo(1.0 / 12.0, within(EPS));
        // the significance tests of the per-step metrics are still there
        assertThat(summary.path("comparisons").get(0).path("metrics").path("overlap_ns").has("welch_t_p")).isTrue();

        assertThat(run.out()).contains("amd: 2 steps, mean loss 0.600000, mean compute 6.000 ms, mean overlap 1.000 ms",
                "overlap_ratio 0.1667 (AORTA's: mean overlap / mean compute); aorta_overlap_ratio mean of per-step"
                        + " ratios 0.3000",
                "comparison: overlap_ratio amd 0.1667, nvidia 0.2500, ratio_delta +0.0833");
    }

    @Test
    void aDirectoryWithoutMetricsFilesCountsZeroAndNoComparisonWithoutBothLabels(@TempDir Path tmp)
            throws IOException {
        Path aorta = Files.createDirectories(tmp.resolve("aorta"));
        Files.writeString(aorta.resolve("rank_00_metrics.jsonl"), AORTA_RUN);
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.copy(aorta.resolve("rank_00_metrics.jsonl"), other.resolve("run.jsonl"));
        Path out = tmp.resolve("report");
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", aorta.toString(), "--label", "a",
                "--log-dir", other.toString(), "--label", "b", "--output", out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertThat(summary.path("datasets").path("b").toString()).isEqualTo("{\"count\":0}");
        assertThat(summary.has("comparison")).isFalse();
        assertThat(run.out()).contains("b: no rank_*_metrics.jsonl steps");
    }
}
