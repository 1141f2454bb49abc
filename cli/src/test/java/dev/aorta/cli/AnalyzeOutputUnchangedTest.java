package dev.aorta.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the analyzer holds records (column-wise, views in order of start, calls by index) is not what it measures:
 * on the sample traces, {@code aorta analyze} prints byte for byte what it printed when every record was an object
 * in a list (the expected outputs in {@code analyze-golden/} were written by that version, before the change).
 */
class AnalyzeOutputUnchangedTest {
    private static final Path SAMPLES = Path.of("..", "samples");

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "traces/a100-allreduce, a100-allreduce.details.jsonl",
            "traces/a100-allreduce, a100-allreduce.txt",
            "traces/a100-event-sync, a100-event-sync.details.jsonl",
            "traces/mi250-minitoy, mi250-minitoy.details.jsonl",
            "traces/rocprofv3-doc, rocprofv3-doc.details.jsonl",
            "agent/gpu-streams-example, gpu-streams-example.details.jsonl"})
    void printsWhatTheObjectPerRecordVersionPrinted(String sample, String expected) throws IOException {
        String trace = SAMPLES.resolve(sample).toString();
        CliRunner.Outcome run = expected.endsWith(".jsonl")
                ? CliRunner.run(null, "analyze", "--format", "json", "--details", trace)
                : CliRunner.run(null, "analyze", trace);
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(golden(expected));
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = AnalyzeOutputUnchangedTest.class.getResourceAsStream("/analyze-golden/" + name)) {
            assertThat(in).as("expected output " + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
