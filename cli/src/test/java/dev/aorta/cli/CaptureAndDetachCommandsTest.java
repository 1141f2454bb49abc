package dev.aorta.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code aorta capture}, {@code attach} and {@code detach} against a real JVM (a child that just runs on) and the
 * shaded agent jar the agent module built.
 */
class CaptureAndDetachCommandsTest {

    @Test
    void captureAttachesTheAgentFirst_aSecondWindowAndASecondAttachAreRefused_detachFlushes(@TempDir Path dir)
            throws Exception {
        Path jar = shadedAgentJar();
        assumeTrue(jar != null, "the agent module's shaded jar is not built (run with -am)");
        Path app = Files.writeString(dir.resolve("Loop.java"), """
                public class Loop {
                    public static void main(String[] a) throws Exception {
                        System.out.println("READY");
                        while (true) {
                            Thread.sleep(5);
                        }
                    }
                }
                """);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, app.toString()).start();
        try {
            assertThat(new BufferedReader(new InputStreamReader(p.getInputStream())).readLine()).isEqualTo("READY");
            String pid = String.valueOf(p.pid());
            Path out = dir.resolve("out");

            CliRunner.Outcome first = CliRunner.run(null, "capture", pid, "--agent-jar", jar.toString(), "-o",
                    "output=" + out, "-o", "between-windows=off");
            assertThat(first.exitCode()).as(first.err()).isZero();
            assertThat(first.out()).contains("aorta agent attached to JVM " + pid + " with capture=on-demand,output="
                    + out.toAbsolutePath(), "JVM " + pid + ": capture window 0 opened (aorta capture until closed)");

            CliRunner.Outcome second = CliRunner.run(null, "capture", pid, "--agent-jar", jar.toString(), "--duration", "1s");
            assertThat(second.exitCode()).isEqualTo(2);
            assertThat(second.err()).contains("aorta capture: JVM " + pid + ": capture window 0 is already open (aorta"
                    + " capture until closed, open for");

            CliRunner.Outcome attach = CliRunner.run(null, "attach", pid, "--agent-jar", jar.toString());
            assertThat(attach.exitCode()).isEqualTo(2);
            assertThat(attach.err()).contains("JVM " + pid + " already has the aorta agent, writing to "
                    + out.toAbsolutePath() + "; aorta capture " + pid + " opens a window, aorta detach " + pid + " stops it");

            Thread.sleep(100);
            CliRunner.Outcome detach = CliRunner.run(null, "detach", pid, "--agent-jar", jar.toString());
            assertThat(detach.exitCode()).as(detach.err()).isZero();
            assertThat(detach.out()).contains("detached: recording stopped and files flushed in " + out.toAbsolutePath());
            assertThat(Files.readString(out.resolve("rank_0_activity.jsonl")))
                    .contains("\"kind\":\"CAPTURE\",\"name\":\"capture 0\"");

            CliRunner.Outcome badDuration = CliRunner.run(null, "capture", pid, "--agent-jar", jar.toString(),
                    "--duration", "5 seconds");
            assertThat(badDuration.err()).contains("option --duration: expected a duration such as 5s, 500ms or 2m, got"
                    + " '5 seconds'");
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    private static Path shadedAgentJar() throws IOException {
        Path target = Path.of("..", "agent", "target");
        if (!Files.isDirectory(target)) {
            return null;
        }
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(target, "aorta-agent-*-shaded.jar")) {
            for (Path j : jars) {
                return j.toAbsolutePath();
            }
        }
        return null;
    }
}
