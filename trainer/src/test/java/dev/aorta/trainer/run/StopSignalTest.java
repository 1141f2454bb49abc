package dev.aorta.trainer.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM and SIGINT stop a training loop after the step in progress, with its metrics file complete and the
 * process exiting normally (0), not killed by the signal (143, 130). The trainer's own loop runs on a GPU host only
 * (scripts/trainer-gpu.sh); here a child JVM runs a loop of the same shape around {@link StopSignal}.
 */
class StopSignalTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void sigtermStopsAfterTheCurrentStepWithEveryLineComplete() throws Exception {
        stopsCleanly("TERM");
    }

    @Test
    void sigintStopsAfterTheCurrentStepWithEveryLineComplete() throws Exception {
        stopsCleanly("INT");
    }

    private void stopsCleanly(String signal) throws Exception {
        Path out = dir.resolve(signal);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StopSignalChild.class.getName(), out.toString())
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            boolean sent = false;
            while ((line = in.readLine()) != null) {
                lines.add(line);
                // signal in the middle of step 2, once two steps are on disk
                if (!sent && line.equals("step 2 begins")) {
                    signal(child, signal);
                    sent = true;
                }
            }
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertThat(child.exitValue()).as(String.join("\n", lines)).isZero();
        String last = lines.get(lines.size() - 1);
        assertThat(last).startsWith("stopped by SIG" + signal + " after ");
        int steps = Integer.parseInt(last.replaceAll(".* after (\\d+) steps", "$1"));
        // the step under way when the signal came was finished, and no step began after it
        assertThat(steps).isGreaterThanOrEqualTo(3);
        assertThat(lines).contains("step " + (steps - 1) + " done").doesNotContain("step " + steps + " begins");
        String text = Files.readString(out.resolve("rank_00_metrics.jsonl"));
        assertThat(text).endsWith("\n");
        List<String> written = text.lines().toList();
        assertThat(written).hasSize(steps);
        for (int s = 0; s < steps; s++) {
            assertThat(JSON.readTree(written.get(s)).path("step").asInt()).isEqualTo(s);
        }
    }

    /** kill(1), not Process.destroy(): destroy also closes the pipe this test reads the child's output from. */
    private static void signal(Process child, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }
}
