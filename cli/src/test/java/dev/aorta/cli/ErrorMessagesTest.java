package dev.aorta.cli;

import dev.aorta.analyzer.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a user reads when a command fails: one line that names what failed (the option and its file) and why,
 * never a bare path, a temporary file's name or a stack trace.
 */
class ErrorMessagesTest {
    private static final Path PROC = Path.of("/proc");

    private static String trace() {
        return Fixtures.resource("aorta/rank_1_metrics.jsonl").toString();
    }

    private static void assertOneLine(CliRunner.Outcome o, String expected) {
        assertThat(o.exitCode()).as(o.err()).isEqualTo(2);
        assertThat(o.err()).isEqualTo(expected + System.lineSeparator());
    }

    @Test
    void mergeIntoAFolderThatIsAFileNamesTheOutputAndWhatIsInTheWay(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("notes.txt"), "not a folder");
        Path output = file.resolve("merged.json");
        assertOneLine(CliRunner.run(null, "merge", "-o", output.toString(), trace()),
                "aorta merge: cannot write --output " + output + ": " + file + " exists and is not a directory");
    }

    @Test
    void mergeIntoAFolderWhereNoFileCanBeCreatedNamesTheOutputNotTheTemporaryFile() {
        assumeTrue(Files.isDirectory(PROC), "needs Linux's /proc, where no file can be created");
        Path output = PROC.resolve("aorta_merged.json");
        CliRunner.Outcome o = CliRunner.run(null, "merge", "-o", output.toString(), trace());
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).startsWith("aorta merge: cannot write --output " + output + ": ")
                .doesNotContain(".tmp").hasLineCount(1);
    }

    @Test
    void reportIntoAnUncreatableFolderSaysWhatFailedAndWhy(@TempDir Path tmp) throws IOException {
        assumeTrue(Files.isDirectory(PROC), "needs Linux's /proc, where no folder can be created");
        Path run = Files.createDirectories(tmp.resolve("run"));
        Files.copy(Fixtures.resource("aorta/rank_1_metrics.jsonl"), run.resolve("rank_1_metrics.jsonl"));
        CliRunner.Outcome o = CliRunner.run(null, "report", "--log-dir", run.toString(), "--label", "a", "--output",
                "/proc/aorta_report");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().lines().filter(l -> !l.startsWith("aorta report: warning: ")))
                .singleElement().asString().matches("aorta report: cannot write --output /proc/aorta_report: [a-z][a-z ]+");
    }

    @Test
    void aMissingTraceIsNamed() {
        assertOneLine(CliRunner.run(null, "analyze", "/nonexistent/rank0.json"),
                "aorta analyze: /nonexistent/rank0.json: no such file");
    }

    @Test
    void analyzeTopMustNotBeNegative() {
        assertOneLine(CliRunner.run(null, "analyze", "--top", "-1", trace()),
                "aorta analyze: --top must be 0 or more (kernel names listed per class), got -1");
    }

    @Test
    void analyzeRepeatMustBePositive() {
        assertOneLine(CliRunner.run(null, "analyze", "--benchmark", "--repeat", "0", trace()),
                "aorta analyze: --repeat must be 1 or more (times the traces are read and analysed), got 0");
    }

    @Test
    void aResultFileThatIsNotJsonIsNamedWithTheLineAndColumnInOneLine(@TempDir Path tmp) throws IOException {
        Path notJson = Files.writeString(tmp.resolve("notes.md"), "# notes\n");
        Path empty = Files.writeString(tmp.resolve("empty.json"), "");
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", notJson.toString(), "--test",
                notJson.toString());
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).startsWith("aorta compare: " + notJson + ":1:1: not valid JSON: Unexpected character ('#'")
                .hasLineCount(1);
        assertOneLine(CliRunner.run(null, "compare", "--baseline", empty.toString(), "--test", empty.toString()),
                "aorta compare: " + empty + ": empty, expected a JSON result");
    }

    @Test
    void checkNamesTheOneOptionOutOfRangeBeforeLookingForAGpu() {
        assertOneLine(CliRunner.run(null, "check", "--gemm-size", "-1"),
                "aorta check: --gemm-size must be 64 or more, got -1");
        assertOneLine(CliRunner.run(null, "check", "--launches", "10"),
                "aorta check: --launches must be 100 or more, got 10");
    }

    @Test
    void runningOutOfMemoryIsOneSentenceSayingWhatToDo() {
        assertThat(ErrorHandler.resourceSentence(new OutOfMemoryError("Java heap space")))
                .startsWith("ran out of memory (Java heap space, with a heap of at most ")
                .contains("AORTA_JAVA_OPTS=-Xmx").doesNotContain("\n").doesNotContain("Exception");
        assertThat(ErrorHandler.resourceSentence(new StackOverflowError())).contains("AORTA_JAVA_OPTS=-Xss");
    }
}
