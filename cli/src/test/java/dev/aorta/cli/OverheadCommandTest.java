package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** aorta overhead against a fake child: a script that writes a launch_overhead result, slower when interposed. */
class OverheadCommandTest {
    @TempDir
    Path dir;

    private Path order;
    private Path agentJar;

    @BeforeEach
    void setUp() throws Exception {
        order = dir.resolve("order.txt");
        agentJar = Files.writeString(dir.resolve("aorta-agent.jar"), "not opened by the fake child");
    }

    /**
     * The fake child: B (an agent in AORTA_JAVA_OPTS or an LD_PRELOAD) takes {@code slowdown} times longer than A
     * of the same pair; pairs drift by 1 ms each, and B has a ±0.02% jitter.
     */
    private Path fakeChild(double slowdown, int exitCode) throws Exception {
        String script = """
                #!/usr/bin/env bash
                out=""
                while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift 2;; *) shift;; esac; done
                kind=A
                if [[ "${AORTA_JAVA_OPTS:-}" == *-javaagent:* || -n "${LD_PRELOAD:-}" ]]; then kind=B; fi
                echo "$kind|${AORTA_JAVA_OPTS:-}|${LD_PRELOAD:-}" >> "ORDER"
                [ EXIT -eq 0 ] || { echo "fake failure"; exit EXIT; }
                n=$(wc -l < "ORDER")
                ms=$(awk -v n="$n" -v k="$kind" 'BEGIN { pair = int((n + 1) / 2); v = 100 + pair;
                    if (k == "B") v = v * SLOWDOWN * (pair % 2 ? 1.0002 : 0.9998); printf "%.6f", v }')
                printf '{"schema":"aorta.launch_overhead/1","summary":[{"pattern":"balanced","ms_per_step_mean":%s},{"pattern":"all_reduce","skipped":"needs 2"}]}' "$ms" > "$out"
                """.replace("ORDER", order.toString()).replace("EXIT", Integer.toString(exitCode))
                .replace("SLOWDOWN", Double.toString(slowdown));
        Path child = dir.resolve("fake-aorta");
        Files.writeString(child, script);
        Files.setPosixFilePermissions(child, PosixFilePermissions.fromString("rwx------"));
        return child;
    }

    private CliRunner.Outcome overhead(String... args) {
        return CliRunner.run(null, Stream.concat(Stream.of("overhead"), Stream.of(args)).toArray(String[]::new));
    }

    @Test
    void anAgentThatCostsTenPercentExceedsAOnePercentThreshold() throws Exception {
        Path child = fakeChild(1.10, 0);
        Path json = dir.resolve("overhead.json");
        CliRunner.Outcome o = overhead("--agent", "device-activity=none", "--agent-jar", agentJar.toString(), "--runs", "3",
                "--json", json.toString(), "--logs", dir.resolve("logs").toString(), "--", child.toString(), "--patterns", "balanced");
        assertThat(o.exitCode()).as(o.err()).isEqualTo(1);
        List<String> runs = Files.readAllLines(order);
        assertThat(runs).extracting(l -> l.substring(0, 1)).containsExactly("A", "B", "A", "B", "A", "B");
        assertThat(runs.get(1)).contains("-javaagent:" + agentJar.toAbsolutePath() + "=device-activity=none");
        assertThat(runs.get(0)).doesNotContain("-javaagent");
        assertThat(o.out()).contains("balanced ms/step").contains("exceeds threshold (1%)").contains("overall: exceeds threshold")
                .doesNotContain("all_reduce");

        JsonNode r = ResultJson.read(json);
        assertThat(r.path("schema").asText()).isEqualTo("aorta.overhead/1");
        JsonNode m = r.path("metrics").get(0);
        assertThat(m.path("metric").asText()).isEqualTo("balanced ms/step");
        assertThat(m.path("a")).hasSize(3);
        assertThat(m.path("ratio").asDouble()).isBetween(1.099, 1.101);
        assertThat(m.path("ci_low").asDouble()).isLessThan(m.path("ratio").asDouble());
        assertThat(m.path("ci_high").asDouble()).isGreaterThan(m.path("ratio").asDouble());
        assertThat(r.path("verdict").asText()).isEqualTo("exceeds threshold");
        assertThat(dir.resolve("logs/B3.json")).exists();
    }

    @Test
    void anInterposerThatCostsNothingMeasurableIsWithinTheThreshold() throws Exception {
        Path child = fakeChild(1.0, 0);
        CliRunner.Outcome o = overhead("--agent", "", "--agent-jar", agentJar.toString(), "--runs", "4",
                "--logs", dir.resolve("logs").toString(), "--", child.toString());
        assertThat(o.exitCode()).as(o.out() + o.err()).isZero();
        assertThat(o.out()).contains("overall: within threshold");
        assertThat(Files.readAllLines(order).get(1)).endsWith(agentJar.toAbsolutePath() + "|");
    }

    @Test
    void aPreloadLibraryIsCheckedToLoadAndReachesOnlyTheBRuns() throws Exception {
        Optional<Path> libm = Stream.of("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6",
                "/lib/aarch64-linux-gnu/libm.so.6").map(Path::of).filter(Files::isRegularFile).findFirst();
        assumeThat(libm).as("a libm to preload").isPresent();
        CliRunner.Outcome o = overhead("--preload", libm.get().toString(), "--runs", "2", "--logs",
                dir.resolve("logs").toString(), "--", fakeChild(1.0, 0).toString());
        assertThat(o.exitCode()).as(o.out() + o.err()).isZero();
        List<String> runs = Files.readAllLines(order);
        assertThat(runs.get(0)).endsWith("||");
        assertThat(runs.get(1)).startsWith("B||").contains(libm.get().toString());
    }

    @Test
    void aPreloadLibraryThatDoesNotExistOrDoesNotLoadFailsBeforeAnyRun() throws Exception {
        Path child = fakeChild(1.0, 0);
        CliRunner.Outcome missing = overhead("--preload", dir.resolve("nope.so").toString(), "--", child.toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("aorta overhead: --preload " + dir.resolve("nope.so") + ": no such file");

        Path text = Files.writeString(dir.resolve("fake.so"), "not an ELF file");
        CliRunner.Outcome broken = overhead("--preload", text.toString(), "--", child.toString());
        assertThat(broken.exitCode()).isEqualTo(2);
        assertThat(broken.err()).contains("--preload " + text + ": cannot be loaded as a shared library");
        assertThat(order).doesNotExist();
    }

    @Test
    void badInputIsOneClearSentenceNamingTheOption() throws Exception {
        Path child = fakeChild(1.0, 0);
        assertThat(overhead("--agent", "x", "--agent-jar", dir.resolve("missing.jar").toString(), "--", child.toString()).err())
                .contains("--agent: the agent jar " + dir.resolve("missing.jar") + " does not exist");
        assertThat(overhead("--", child.toString()).err()).contains("nothing to compare: give --agent OPTIONS and/or --preload LIB");
        assertThat(overhead("--agent", "", "--agent-jar", agentJar.toString()).err())
                .contains("give the command to measure after --");
        assertThat(overhead("--agent", "", "--agent-jar", agentJar.toString(), "--", child.toString(), "-o", "x.json").err())
                .contains("must not write its own result (-o)");
        assertThat(overhead("--agent", "", "--agent-jar", agentJar.toString(), "--runs", "1", "--", child.toString()).err())
                .contains("--runs must be 2 or more");
        assertThat(overhead("--agent", "", "--agent-jar", agentJar.toString(), "--threshold", "-1", "--", child.toString()).err())
                .contains("--threshold must be a positive fraction");
        assertThat(order).doesNotExist();
    }

    @Test
    void aFailingRunStopsWithItsExitCodeAndWhereItsOutputIs() throws Exception {
        Path child = fakeChild(1.0, 3);
        Path logs = dir.resolve("logs");
        CliRunner.Outcome o = overhead("--agent", "", "--agent-jar", agentJar.toString(), "--logs", logs.toString(), "--",
                child.toString());
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("run A1 failed with exit code 3; its output: " + logs.resolve("A1.log"));
        assertThat(logs.resolve("A1.log")).content().contains("fake failure");
    }

    @Test
    void aLaunchOfSeveralRanksRunsThroughThisInstallationAndTheResultOptionReachesTheRanksCommand() throws Exception {
        // the fake bin/aorta stands for launch: it records its arguments and writes rank 0's result where -o says
        Path bin = Files.createDirectories(dir.resolve("home/bin"));
        Path aorta = Files.writeString(bin.resolve("aorta"), """
                #!/usr/bin/env bash
                echo "$*" >> "ORDER"
                out=""
                while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift 2;; *) shift;; esac; done
                printf '{"schema":"aorta.launch_overhead/1","summary":[{"pattern":"all_reduce","ranks":2,"ms_per_step_mean":3.5}]}' > "$out"
                """.replace("ORDER", order.toString()));
        Files.setPosixFilePermissions(aorta, PosixFilePermissions.fromString("rwx------"));
        String before = System.getProperty("aorta.home");
        System.setProperty("aorta.home", dir.resolve("home").toString());
        try {
            CliRunner.Outcome o = overhead("--agent", "", "--agent-jar", agentJar.toString(), "--runs", "2", "--logs",
                    dir.resolve("logs").toString(), "--", "launch", "--nproc-per-node", "2", "--", "launch-overhead",
                    "--patterns", "all_reduce", "--seconds", "5");
            assertThat(o.exitCode()).as(o.out() + o.err()).isZero();
            assertThat(o.out()).contains("all_reduce ms/step");
            assertThat(Files.readAllLines(order)).hasSize(4).first().asString()
                    .isEqualTo("launch --nproc-per-node 2 -- launch-overhead --patterns all_reduce --seconds 5 -o "
                            + dir.resolve("logs/A1.json"));
        } finally {
            if (before == null) {
                System.clearProperty("aorta.home");
            } else {
                System.setProperty("aorta.home", before);
            }
        }
    }
}
