package dev.aorta.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.analyzer.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class MergeAndReportCommandTest {

    @Test
    void mergeWritesAChromeTraceWithRanksStreamsAndIterations(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("trace.json");
        CliRunner.Outcome run = CliRunner.run(null, "merge", "-o", out.toString(),
                Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz").toString(),
                Fixtures.resource("aorta/rank_1_metrics.jsonl").toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        Set<String> names = new HashSet<>();
        long slices = 0;
        try (JsonParser p = JsonFactory.builder().build().createParser(out.toFile())) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("ph")) {
                    p.nextToken();
                    slices += p.getText().equals("X") ? 1 : 0;
                } else if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("name")) {
                    p.nextToken();
                    names.add(p.getText());
                }
            }
        }
        assertThat(names).contains("rank 0", "rank 1", "iterations", "stream 7", "stream compute", "ProfilerStep#4");
        assertThat(slices).isGreaterThan(2700);
        assertThat(tmp).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void analyzeReadsTheMergedTraceBackWithTheNumbersOfItsInputs(@TempDir Path tmp) throws IOException {
        String[] inputs = {Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz").toString(),
                Fixtures.resource("aorta/rank_1_metrics.jsonl").toString()};
        Path merged = tmp.resolve("merged.json");
        List<String> merge = new java.util.ArrayList<>(List.of("merge", "-o", merged.toString()));
        merge.addAll(List.of(inputs));
        assertThat(CliRunner.run(null, merge.toArray(String[]::new)).exitCode()).isZero();
        List<String> analyze = new java.util.ArrayList<>(List.of("analyze", "--format", "json"));
        analyze.addAll(List.of(inputs));

        CliRunner.Outcome direct = CliRunner.run(null, analyze.toArray(String[]::new));
        CliRunner.Outcome back = CliRunner.run(null, "analyze", "--format", "json", merged.toString());
        assertThat(back.exitCode()).as(back.err()).isZero();
        // every window of both ranks, its overlap numbers included; "source" names the files read, and the
        // cross-rank line's clock offsets are 0 once the export has aligned the ranks
        assertThat(windows(back.out())).isEqualTo(windows(direct.out())).hasSize(6);
    }

    /** The window lines, each without its "source". */
    private static List<JsonNode> windows(String jsonLines) throws IOException {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String line : jsonLines.lines().toList()) {
            JsonNode n = new ObjectMapper().readTree(line);
            if (n.has("window")) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) n).remove("source");
                out.add(n);
            }
        }
        return out;
    }

    @Test
    void reportComparesTwoLabelledRunsAndWritesSummaryPlotsAndHtml(@TempDir Path tmp) throws IOException {
        Path a = Files.createDirectories(tmp.resolve("cuda"));
        Path b = Files.createDirectories(tmp.resolve("aorta"));
        Files.copy(Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz"), a.resolve("rank0.json.gz"));
        Files.copy(Fixtures.resource("aorta/rank_1_metrics.jsonl"), b.resolve("rank_1_metrics.jsonl"));
        Path out = tmp.resolve("report");
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", a.toString(), "--label", "cuda", "--log-dir",
                b.toString(), "--label", "aorta", "--output", out.toString(), "--reference", "cuda", "--candidate", "aorta");
        assertThat(run.exitCode()).as(run.err()).isZero();
        String summary = Files.readString(out.resolve("summary.json"));
        assertThat(summary).contains("\"cuda\"", "\"aorta\"", "\"comparisons\"", "\"welch_t_p\"", "\"mann_whitney_p\"",
                "\"comm_overlap_pct\"", "\"aorta_overlap_ratio\"", "\"delta\"", "\"ratio\"");
        for (String png : new String[] {"cuda_timeline.png", "aorta_timeline.png", "cuda_gantt.png", "aorta_gantt.png"}) {
            BufferedImage image = ImageIO.read(out.resolve(png).toFile());
            assertThat(image).as(png).isNotNull();
            assertThat(image.getWidth()).isGreaterThan(500);
        }
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<table", "data:image/png;base64,", "aorta vs cuda").doesNotContain("src=\"http");
        // each rank's whole trace: idle by cause (HTA's A100 trace: stream 7 idles 542.242 ms, 540.091 of it host
        // wait), launches, API calls, copies
        assertThat(html).contains("Idle time by cause per stream (whole trace)",
                "<tr><td>0</td><td>7</td><td>542.242</td><td>540.091</td><td>0.000</td><td>2.150</td></tr>",
                "Kernel launches (whole trace)", "API calls (whole trace", "cudaLaunchKernel",
                "Memory-copy bandwidth (whole trace)", "<td>DtoD</td>");
        assertThat(summary).contains("\"whole_trace_breakdowns\"", "\"host_wait_ns\" : 540091317");
    }

    @Test
    void theReportShowsTheCriticalPathOfEachStepAsAnalyzeMeasuresIt(@TempDir Path tmp) throws IOException {
        Path a = Files.createDirectories(tmp.resolve("cuda"));
        Files.copy(Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz"), a.resolve("rank0.json.gz"));
        Path out = tmp.resolve("report");
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", a.toString(), "--label", "cuda",
                "--output", out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        String html = Files.readString(out.resolve("report.html"));
        CliRunner.Outcome analyze = CliRunner.run(null, "analyze", "--format", "json", "--details",
                a.resolve("rank0.json.gz").toString());
        assertThat(analyze.exitCode()).as(analyze.err()).isZero();

        assertThat(html).contains("Critical path per window");
        List<String> steps = analyze.out().lines().toList();
        assertThat(steps).hasSize(3);
        for (String line : steps) {
            JsonNode w = new ObjectMapper().readTree(line);
            JsonNode p = w.get("critical_path");
            double length = p.get("length_ns").asDouble();
            // the A100 run is host-bound (CriticalPathOnSampleTest): a path of real length, mostly host time
            assertThat(p.get("host_ns").asDouble() / length).isGreaterThan(0.95);
            assertThat(html).contains(String.format(Locale.ROOT, "<tr><td>0</td><td>%s</td><td>%.3f</td><td>%.3f</td>"
                            + "<td>%.1f%%</td><td>%d</td><td>%.3f</td><td>%.1f%%</td><td>%d</td><td>%.3f</td><td>%.1f%%</td>"
                            + "</tr>", w.get("window").asText(), length / 1e6, p.get("host_ns").asLong() / 1e6,
                    100 * p.get("host_ns").asDouble() / length, p.get("host_calls").asInt(),
                    p.get("device_ns").asLong() / 1e6, 100 * p.get("device_ns").asDouble() / length,
                    p.get("device_activities").asInt(), p.get("launch_ns").asLong() / 1e6,
                    100 * p.get("launch_ns").asDouble() / length));
        }
    }

    @Test
    void reportNeedsLabelsPairedWithDirectories(@TempDir Path tmp) {
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", tmp.toString(), "--log-dir", tmp.toString(), "--label",
                "x", "--output", tmp.resolve("o").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--log-dir and --label must come in pairs");
    }

    @Test
    void aLabelMustBeUsableAsAFileName(@TempDir Path tmp) {
        CliRunner.Outcome run = CliRunner.run(null, "report", "--log-dir", tmp.toString(), "--label", "../x", "--output",
                tmp.resolve("o").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--label '../x': use letters, digits");
    }
}
