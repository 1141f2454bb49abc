package dev.aorta.trainer.log;

import dev.aorta.trainer.config.LoggingConfig.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class RankLogTest {
    @TempDir
    Path out;

    @Test
    void eachLineIsInTheFileAsSoonAsItIsLoggedBeforeTheLogIsClosed() throws IOException {
        try (RankLog log = RankLog.open(out, 2, Level.INFO)) {
            assertThat(log.file()).isEqualTo(out.resolve("rank2.log"));
            log.info("step 0/10  loss 0.69");
            assertThat(Files.readAllLines(log.file())).singleElement().asString()
                    .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO rank 2: step 0/10  loss 0\\.69");
            log.warning("NVML is not available\nsecond line");
            assertThat(Files.readAllLines(log.file())).hasSize(2).last().asString()
                    .endsWith("WARNING rank 2: NVML is not available second line");
        }
    }

    @Test
    void theLinesLoggedBeforeAKillAreInTheFile() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RankLogChild.class.getName(), out.toString())
                .redirectError(out.resolve("child.err").toFile()).start();
        try (BufferedReader said = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(said.readLine()).as("the child's stderr: %s", out.resolve("child.err")).isEqualTo("logged 3");
        }
        child.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no close, no flush
        assertThat(Files.readAllLines(out.resolve("rank0.log"))).extracting(l -> l.substring(l.indexOf(": ") + 2))
                .containsExactly("line 0", "line 1", "line 2");
    }

    @Test
    void linesBelowTheLevelAreLeftOut() throws IOException {
        try (RankLog log = RankLog.open(out, 0, Level.WARNING)) {
            log.debug("a");
            log.info("b");
            log.warning("c");
            log.error("d");
            assertThat(log.enabled(Level.INFO)).isFalse();
        }
        assertThat(Files.readAllLines(out.resolve("rank0.log"))).extracting(l -> l.substring(l.indexOf("rank 0: ") + 8))
                .containsExactly("c", "d");
    }

    @Test
    void openingStartsTheFileAfresh() throws IOException {
        try (RankLog log = RankLog.open(out, 0, Level.DEBUG)) {
            log.info("first run");
        }
        try (RankLog log = RankLog.open(out, 0, Level.DEBUG)) {
            log.info("second run");
        }
        assertThat(Files.readAllLines(out.resolve("rank0.log"))).singleElement().asString().endsWith("second run");
    }
}
