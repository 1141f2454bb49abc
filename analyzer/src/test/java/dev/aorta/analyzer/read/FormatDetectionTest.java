package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Formats are told apart by content: every sample is copied under a misleading name first. */
class FormatDetectionTest {
    private final TraceReaders readers = TraceReaders.installed();

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
            "kineto/a100_allreduce_rank0_of2.json.gz, kineto",
            "kineto/mi250_minitoy_rocm6.2.json.gz, kineto",
            "rocprof/mi350_rocprofv3_results.json.gz, rocprofv3-json",
            "rocprof/doc_kernel_trace.csv, rocprofv3-csv",
            "rocprof/doc_memory_copy_trace.csv, rocprofv3-csv",
            "rocprof/doc_marker_api_trace.csv, rocprofv3-csv",
            "rocprof/doc_hip_runtime_trace.csv, rocprofv3-csv"})
    void sharedFixtures(String fixture, String format, @TempDir Path tmp) throws IOException {
        Path renamed = Files.copy(Fixtures.file(fixture), tmp.resolve("trace.bin"));
        assertThat(readers.readerFor(TraceSource.of(renamed)).format()).isEqualTo(format);
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
            "rocprof/results.csv, rocprof-results-csv",
            "rocprof/rocpd_converted_kernel_trace.csv, rocprofv3-csv",
            "aorta/rank_1_metrics.jsonl, aorta-metrics-jsonl"})
    void testResources(String resource, String format, @TempDir Path tmp) throws IOException {
        Path renamed = Files.copy(Fixtures.resource(resource), tmp.resolve("data.json"));
        assertThat(readers.readerFor(TraceSource.of(renamed)).format()).isEqualTo(format);
    }

    @Test
    void agentJsonl(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("out.txt");
        AgentJsonlReaderTest.writeAgentTrace(file, 0, 0);
        assertThat(readers.readerFor(TraceSource.of(file)).format()).isEqualTo("aorta-agent-jsonl");
    }

    @Test
    void somethingElseIsRejectedNamingTheFileAndTheKnownFormats(@TempDir Path tmp) throws IOException {
        Path json = Files.writeString(tmp.resolve("config.json"), "{\"model\": {\"layers\": 4}}");
        assertThatThrownBy(() -> readers.readerFor(TraceSource.of(json))).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("config.json: unknown trace format; expected one of ").hasMessageContaining("kineto")
                .hasMessageContaining("nsys-sqlite");
    }
}
