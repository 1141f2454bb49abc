package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.report.StreamSelection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user sees for a real profiler trace with hundreds of streams (rocprofv3 of a training run on MI350):
 * a stream listing and a Gantt chart that stay readable, units that say what is shown, and a queue switch estimate
 * that comes with its sample counts and what it means.
 */
class ProfilerTraceOutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path rocprofTrace() {
        return Fixtures.file("rocprof/mi350_rocprofv3_results.json.gz");
    }

    private static JsonNode detailsOfTheOnlyWindow(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("analyze", "--format", "json", "--details"));
        argv.addAll(List.of(args));
        CliRunner.Outcome run = CliRunner.run(null, argv.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(1);
        return JSON.readTree(lines.get(0));
    }

    private static List<String> streamLines(String text) {
        return text.lines().filter(l -> l.startsWith("  stream ")).toList();
    }

    @Test
    void hundredsOfStreamsListTheBusiestOneByOneAndTheRestOnOneLine() throws IOException {
        JsonNode window = detailsOfTheOnlyWindow(rocprofTrace().toString());
        List<JsonNode> streams = new ArrayList<>();
        window.get("streams").forEach(streams::add);
        int cap = StreamSelection.DEFAULT_CAP;
        assertThat(streams).as("the fixture has far more streams than are listed").hasSizeGreaterThan(10 * cap);
        streams.sort(Comparator.comparingLong((JsonNode s) -> s.get("busy_ns").asLong()).reversed());
        List<String> busiest = streams.subList(0, cap).stream().map(s -> "  stream " + s.get("label").asText() + " ")
                .toList();
        long restBusyNs = streams.subList(cap, streams.size()).stream().mapToLong(s -> s.get("busy_ns").asLong()).sum();

        CliRunner.Outcome text = CliRunner.run(null, "analyze", rocprofTrace().toString());
        assertThat(text.exitCode()).as(text.err()).isZero();
        List<String> listed = streamLines(text.out());
        assertThat(listed).hasSize(cap);
        for (int i = 0; i < cap; i++) {
            assertThat(listed.get(i)).as("busiest first").startsWith(busiest.get(i).replaceAll(" $", ""));
        }
        assertThat(text.out()).contains(String.format(Locale.ROOT, "  %d more streams: busy %.3f ms summed over them",
                streams.size() - cap, restBusyNs / 1e6));

        CliRunner.Outcome all = CliRunner.run(null, "analyze", "--streams", String.valueOf(streams.size()),
                rocprofTrace().toString());
        assertThat(streamLines(all.out())).hasSize(streams.size());
        assertThat(all.out()).doesNotContain("more streams");
    }

    @Test
    void theStreamCapMustBePositive() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--streams", "0", rocprofTrace().toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--streams 0: expected at least 1");
    }

    @Test
    void theQueueSwitchEstimateComesWithItsSampleCountsAndWhatItMeans() throws IOException {
        JsonNode sw = detailsOfTheOnlyWindow(rocprofTrace().toString()).get("queue_switch");
        long intra = sw.get("intra_gaps").asLong();
        long inter = sw.get("inter_gaps").asLong();
        assertThat(inter).isPositive();
        assertThat(sw.get("mean_intra_gap_ns").isNumber()).isTrue();
        assertThat(sw.get("mean_inter_gap_ns").isNumber()).isTrue();
        assertThat(sw.get("estimated_switch_overhead_ns").isNumber()).isTrue();
        assertThat(sw.get("stream_switches_measured").asLong()).isEqualTo(inter);
        assertThat(sw.get("gaps_qualified").asLong()).isEqualTo(intra + inter);
        assertThat(sw.get("estimated_switch_overhead_meaning").asText()).contains("upper bound")
                .contains("not a measured hardware queue switch");

        CliRunner.Outcome text = CliRunner.run(null, "analyze", rocprofTrace().toString());
        assertThat(text.out()).contains(String.format(Locale.ROOT, "estimated switch overhead %.1f us: from %d stream"
                        + " switches that left an idle gap against %d same-stream gaps (%d gaps qualified)",
                sw.get("estimated_switch_overhead_ns").asDouble() / 1e3, inter, intra, intra + inter))
                .contains("(an upper bound: mean idle gap between consecutive kernels on different streams");
    }

    @Test
    void withoutAStreamSwitchThatLeftAGapThereIsNoEstimate() {
        // the MI250 toy's kernels run back to back on one stream: every idle gap is a same-stream gap
        CliRunner.Outcome text = CliRunner.run(null, "analyze", "--window", "whole",
                Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz").toString());
        assertThat(text.exitCode()).as(text.err()).isZero();
        assertThat(text.out()).contains("inter gaps")
                .containsPattern("estimated switch overhead n/a: it needs idle gaps both between kernels of different"
                        + " streams \\(here 0\\) and between kernels of one stream \\(here [1-9]\\d*\\)")
                .doesNotContain("estimated switch overhead 0.0 us");
    }

    @Test
    void theReportOfAManyStreamRunDrawsAGanttOfReadableSizeAndLabelsMillisecondsAsSuch(@TempDir Path tmp)
            throws IOException {
        Path run = Files.createDirectories(tmp.resolve("mi350"));
        Files.copy(rocprofTrace(), run.resolve("results.json.gz"));
        Path out = tmp.resolve("report");
        CliRunner.Outcome report = CliRunner.run(null, "report", "--log-dir", run.toString(), "--label", "mi350",
                "--output", out.toString());
        assertThat(report.exitCode()).as(report.err()).isZero();
        BufferedImage gantt = ImageIO.read(out.resolve("mi350_gantt.png").toFile());
        // one row per listed stream and one for all the others, 45 px each, plus title and axes
        assertThat(gantt.getHeight()).isLessThanOrEqualTo(90 + 45 * (StreamSelection.DEFAULT_CAP + 1));
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<td>window (ms)</td>", "<td>exposed_comm (ms)</td>").doesNotContain("_ns (ms)");
    }
}
