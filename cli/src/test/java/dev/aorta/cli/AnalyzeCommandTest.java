package dev.aorta.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.analyzer.Fixtures;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AnalyzeCommandTest {
    private static final List<String> JSON_KEYS = List.of("rank", "window", "source", "window_ns", "busy_ns", "idle_ns",
            "compute_ns", "comm_ns", "overlap_ns", "exposed_comm_ns", "exposed_memcpy_ns", "comm_overlap_pct",
            "aorta_overlap_ratio");

    private static List<String> keys(String jsonLine) throws IOException {
        List<String> keys = new ArrayList<>();
        try (JsonParser p = JsonFactory.builder().build().createParser(jsonLine)) {
            assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            String f;
            while ((f = p.nextFieldName()) != null) {
                keys.add(f);
                if (p.nextToken().isStructStart()) {
                    p.skipChildren();
                }
            }
        }
        return keys;
    }

    @Test
    void jsonIsOneObjectPerRankAndStepWithExactlyTheDesignNames() throws IOException {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json",
                Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz").toString());
        assertThat(run.exitCode()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(3);
        for (String line : lines) {
            assertThat(keys(line)).containsExactlyElementsOf(JSON_KEYS);
        }
        assertThat(lines.get(0)).contains("\"window\":\"step 4\"", "\"busy_ns\":49438921", "\"rank\":0");
    }

    @Test
    void textReportsMetricsStreamsKernelsAndLatencies() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "whole",
                Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("rank 0  whole", "comm_overlap_pct", "aorta_overlap_ratio", "stream 7",
                "communication", "ncclKernel", "launch latency: n=", "queue length (enqueue)");
    }

    @Test
    void rangesAreWindowsToo() throws IOException {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json", "--window", "ranges",
                Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("\"window\":\"## backward ##\"", "\"window\":\"nccl:all_reduce\"");
        assertThat(run.out().lines()).allSatisfy(l -> assertThat(l).contains("\"window_ns\":"));
    }

    /**
     * Two agent ranks of one step: rank 1's CUPTI clock runs 3 ms ahead of rank 0's, its gemm ends 0.5 ms later, and
     * the all-reduce that follows ends together on both.
     */
    private static void writeTwoRanks(Path tmp) throws IOException {
        for (int rank = 0; rank < 2; rank++) {
            long skew = rank == 1 ? 3_000_000 : 0;
            long computeEnd = rank == 1 ? 5_500_000 : 5_000_000;
            try (var out = Files.newOutputStream(tmp.resolve("rank_" + rank + "_activity.jsonl"));
                 var w = new EventJsonlWriter(out)) {
                ClockDomain cupti = ClockDomain.CUPTI;
                w.write(new Marker(Marker.Kind.ITERATION, "step", rank, 1,
                        skew, 9_000_000 + skew, cupti));
                w.write(new DeviceActivity(ActivityKind.KERNEL, "gemm", rank, 0,
                        7, skew, computeEnd + skew, 1, -1, -1, Dim3.NONE,
                        Dim3.NONE, 0, cupti));
                w.write(new DeviceActivity(ActivityKind.COLLECTIVE,
                        "ncclAllReduce", rank, 0, 13, computeEnd + skew, 8_000_000 + skew, 2, -1, -1,
                        Dim3.NONE, Dim3.NONE, 1 << 20, cupti));
            }
        }
    }

    @Test
    void withSeveralRanksTheJsonEndsWithTheCrossRankSectionsOfTheText(@TempDir Path tmp) throws IOException {
        writeTwoRanks(tmp);
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json", tmp.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(keys(lines.get(2))).containsExactly("cross_rank");
        JsonNode x = new ObjectMapper().readTree(lines.get(2)).get("cross_rank");

        assertThat(x.get("ranks").asInt()).isEqualTo(2);
        assertThat(x.at("/clock_offsets/1/offset_ns").asLong()).isEqualTo(-3_000_000);
        assertThat(x.at("/clock_offsets/1/matched_collectives").asInt()).isEqualTo(1);
        assertThat(x.at("/stragglers/0/step").asLong()).isEqualTo(1);
        assertThat(x.at("/stragglers/0/rank").asInt()).isEqualTo(1);
        assertThat(x.at("/stragglers/0/lateness_ns").asLong()).isEqualTo(500_000);
        JsonNode gemm = null;
        for (JsonNode k : x.get("kernels_across_ranks")) {
            gemm = k.get("name").asText().equals("gemm") ? k : gemm;
        }
        assertThat(gemm).isNotNull();
        assertThat(gemm.get("slowest_rank").asInt()).isEqualTo(1);
        assertThat(gemm.at("/ranks/0/total_ns").asLong()).isEqualTo(5_000_000);
        assertThat(gemm.at("/ranks/1/total_ns").asLong()).isEqualTo(5_500_000);
        assertThat(x.get("collective_skew")).hasSize(1);
        JsonNode skew = x.at("/collective_skew/0");
        assertThat(skew.get("message_bytes").asLong()).isEqualTo(1 << 20);
        assertThat(skew.get("start_skew_max_ns").asDouble()).isEqualTo(500_000);
        assertThat(skew.get("end_skew_max_ns").asDouble()).isZero();
        assertThat(skew.get("last_to_start_rank").asInt()).isEqualTo(1);
        // the text says the same
        assertThat(CliRunner.run(null, "analyze", tmp.toString()).out()).contains("start skew mean 0.500 ms max 0.500 ms"
                + "  end skew max 0.000 ms  last to start: rank 1 (1 x)");
    }

    @Test
    void withOneRankTheJsonHasNoCrossRankLine() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json",
                Path.of("..", "samples", "traces", "a100-event-sync").toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).isNotEmpty().doesNotContain("cross_rank");
    }

    @Test
    void severalRanksAreAlignedByTheirCollectivesAndTheStragglerIsNamed(@TempDir Path tmp) throws IOException {
        writeTwoRanks(tmp);
        CliRunner.Outcome run = CliRunner.run(null, "analyze", tmp.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("rank 0  step 1", "rank 1  step 1", "clock alignment by collectives",
                "rank 1  offset -3.000 ms  matched 1 collectives", "step 1: straggler rank 1 (others waited 0.500 ms in total)");
    }

    @Test
    void anEmptyFileIsOneClearErrorAndExitCode2(@TempDir Path tmp) throws IOException {
        Path empty = Files.createFile(tmp.resolve("rank_0_trace.json"));
        CliRunner.Outcome run = CliRunner.run(null, "analyze", empty.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("aorta analyze: ").contains("rank_0_trace.json").contains("empty")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aGzipCutInsideItsHeaderIsOneClearError(@TempDir Path tmp) throws IOException {
        Path cut = Files.write(tmp.resolve("trace.json.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0});
        CliRunner.Outcome run = CliRunner.run(null, "analyze", cut.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("trace.json.gz: the gzip stream ends inside its header");
    }

    @Test
    void anUnknownFormatNamesTheFileAndTheFormatsTried(@TempDir Path tmp) throws IOException {
        Path text = Files.writeString(tmp.resolve("notes.txt"), "hello\n");
        CliRunner.Outcome run = CliRunner.run(null, "analyze", text.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("notes.txt: unknown trace format; expected one of").contains("kineto")
                .contains("rocprofv3-csv").contains("jfr");
    }

    @Test
    void oneBadFileAmongGoodOnesIsAWarningNotAFailure(@TempDir Path tmp) throws IOException {
        Path text = Files.writeString(tmp.resolve("notes.txt"), "hello\n");
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "whole", text.toString(),
                Fixtures.file("rocprof/doc_kernel_trace.csv").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("rank 0  whole");
        assertThat(run.err()).contains("warning: ").contains("notes.txt: unknown trace format");
    }

    @Test
    void tracesOfUnrelatedRunsAreRefusedInOneSentenceNamingBoth() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze",
                Fixtures.file("kineto/a100_event_sync_3streams.json.gz").toString(),
                Fixtures.file("rocprof/mi350_rocprofv3_results.json.gz").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines()).singleElement().asString()
                .startsWith("aorta analyze: a100_event_sync_3streams.json.gz and mi350_rocprofv3_results.json.gz cannot"
                        + " be one timeline of rank 0")
                .endsWith("analyse each run's files with its own command");
    }

    @Test
    void badOptionValuesAreNamed() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "hours", "x.json");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--window: 'hours' is not one of steps, whole, ranges");
        run = CliRunner.run(null, "analyze", "--comm-pattern", "(", Fixtures.file("rocprof/doc_kernel_trace.csv").toString());
        assertThat(run.err()).contains("--comm-pattern/--memory-pattern: not a regular expression");
    }

    @Test
    void stepsAreMeasuredOnTheDeviceAndTheTextSaysHowMuchDeviceTimeIsInNoStep() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze",
                Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("rank 0  step 1", "on the device: first to last kernel launched in the step",
                "rank 0  step 2", "no device work was launched in this step: measured over its host range")
                .containsPattern("rank 0: device time in no step \\d+\\.\\d{3} ms of \\d+\\.\\d{3} ms busy \\(\\d+\\.\\d%\\);"
                        + " 1 of 2 steps launched no device work");
    }

    @Test
    void aFileWithApiCallsButNoDeviceWorkSaysWhatIsMissing() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze",
                Fixtures.file("rocprof/doc_hip_runtime_trace.csv").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).hasLineCount(1).startsWith("aorta analyze: nothing to measure: rank 0:")
                .contains("doc_hip_runtime_trace.csv holds").contains("API calls and 0 markers but no device activity");
    }
}
