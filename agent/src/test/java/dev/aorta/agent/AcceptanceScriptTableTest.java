package dev.aorta.agent;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * scripts/agent-acceptance-16.sh's table (its {@code --summarize} mode) read from canned logs of the shapes its
 * steps leave: one row per acceptance bullet, PASS/FAIL from the bars, SKIP with the reason, exit 1 on a FAIL; and
 * scripts/agent-events-gpu.sh's, which shares its rows (scripts/lib/agent_table.py).
 */
class AcceptanceScriptTableTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path CANNED = Path.of("src/test/resources/acceptance-16").toAbsolutePath();
    private static final Path EVENTS_CANNED = Path.of("src/test/resources/agent-events-gpu").toAbsolutePath();
    private static final String ACCEPTANCE = "scripts/agent-acceptance-16.sh";
    private static final String EVENTS = "scripts/agent-events-gpu.sh";

    @Test
    void passingLogsGiveOnlyPassAndTheSkipsWithTheirReasons() throws Exception {
        Run run = summarize("pass");

        assertThat(run.exit).isZero();
        assertThat(row(run, "API recording, launch_overhead balanced")).contains("1.0031 [0.9990, 1.0072]").endsWith("PASS");
        assertThat(row(run, "paired in process")).contains("82.2 ns/launch").endsWith("PASS");
        assertThat(row(run, "between-windows=off (A/B)")).contains("[0.9962, 1.0046]").endsWith("PASS");
        // the woven launch outside windows against the bare one, in % of the bare launch, every process
        assertThat(row(run, "between-windows=off, paired in process"))
                .contains("1 streams: 4.0 ns [-0.12%, +0.27%]", "16 streams: -2.0 ns [-0.27%, +0.19%]").endsWith("PASS");
        assertThat(row(run, "events mode, tiny_kernel_stress 16 streams (A/B)")).contains("1.0990").endsWith("PASS");
        assertThat(row(run, "tiny_kernel_stress 16 streams, alternating windows"))
                .contains("median iteration with/without 1.0410 [1.0280, 1.0540], 148 cycles").endsWith("PASS");
        assertThat(row(run, "vs CUPTI")).contains("812/830 matched", "max 0.950 us").endsWith("PASS");
        assertThat(row(run, "no record lost")).contains("240000 launches/s in window, 0 of 480000 lost").endsWith("PASS");
        assertThat(row(run, "200 000 launches/s")).contains("240000 launches/s in window (4 threads)").endsWith("PASS");
        // 100 more windows, 1.2 MB more at the peak: no cost per window
        assertThat(row(run, "50 windows opened")).contains("50 vs 150 windows: threads 31 vs 31", "0.012 MB/window").endsWith("PASS");
        // the same with the advice woven in and taken out at every window
        assertThat(row(run, "advice woven and taken out")).contains("threads 32 vs 32", "0.021 MB/window").endsWith("PASS");
        assertThat(row(run, "Nsight")).contains("nsys is not installed").endsWith("SKIP");
        // the trainer's own median step, from aorta train -o's result, not the process's wall time
        assertThat(row(run, "API recording, trainer step")).contains("train median step ms B/A 1.0017").endsWith("PASS");
        assertThat(row(run, "events mode, trainer step")).contains("[1.0121, 1.0288]").endsWith("PASS");
        assertThat(row(run, "API recording, trainer step, alternating windows"))
                .contains("median step with/without 1.0042 [0.9991, 1.0093], 198 cycles").endsWith("PASS");
        assertThat(row(run, "events mode, trainer step, alternating windows")).contains("1.0170 [1.0082, 1.0258]")
                .endsWith("PASS");
        assertThat(run.lines).last().asString().startsWith("0 FAIL, 1 SKIP");
    }

    @Test
    void eachBarThatIsMissedFailsItsRowAndTheScript() throws Exception {
        Run run = summarize("fail");

        assertThat(run.exit).isEqualTo(1);
        assertThat(row(run, "events mode, tiny_kernel_stress 16 streams (A/B)")).contains("1.1900").endsWith("FAIL");
        assertThat(row(run, "tiny_kernel_stress 16 streams, alternating windows")).contains("[1.0820, 1.1080]")
                .endsWith("FAIL");
        // one process's interval excludes 0 (+24 ns, though within 1 %): distinguishable, so the row fails
        assertThat(row(run, "between-windows=off, paired in process")).contains("1 streams: 24.0 ns [+0.30%, +0.67%]")
                .endsWith("FAIL");
        assertThat(row(run, "vs CUPTI")).contains("none of the 830").endsWith("FAIL");
        assertThat(row(run, "no record lost")).contains("10 of 300000 lost").endsWith("FAIL");
        assertThat(row(run, "200 000 launches/s")).contains("150000 launches/s").endsWith("FAIL");
        // threads steady, but 100 more windows hold 341 MB more: a leak of 3.4 MB a window
        assertThat(row(run, "50 windows opened")).contains("threads 31 vs 31", "3.408 MB/window").endsWith("FAIL");
        // 0.42 MB more a window once the advice is woven in and taken out each time: retransformation leaks
        assertThat(row(run, "advice woven and taken out")).contains("0.420 MB/window").endsWith("FAIL");
        assertThat(row(run, "Nsight")).contains("600 matched", "max 1.900 us").endsWith("PASS");
        assertThat(row(run, "events mode, trainer step")).contains("1.0630").endsWith("FAIL");
        // the session-11 H100 figures: decided, above the bars
        assertThat(row(run, "API recording, trainer step, alternating windows")).contains("1.0114 [1.0024, 1.0204]")
                .endsWith("FAIL");
        assertThat(row(run, "events mode, trainer step, alternating windows")).contains("[1.0302, 1.0521]")
                .endsWith("FAIL");
        assertThat(run.lines).last().asString().startsWith("11 FAIL, 0 SKIP");
    }

    @Test
    void stepsThatDidNotRunWithinTheirBudgetAreSkipRowsSayingWhyAndTheRestStillDecide() throws Exception {
        Run run = summarize("over-budget");

        assertThat(run.exit).isZero();
        assertThat(row(run, "between-windows=off (A/B)")).contains("not finished within its budget of 150 s").endsWith("SKIP");
        assertThat(row(run, "between-windows=off, paired in process")).contains("not run: 60 s").endsWith("SKIP");
        assertThat(row(run, "50 windows opened")).contains("not run: 40 s of the run's 510 s were left").endsWith("SKIP");
        assertThat(row(run, "advice woven and taken out")).contains("not run: 30 s").endsWith("SKIP");
        assertThat(row(run, "API recording, launch_overhead balanced")).endsWith("PASS");
        assertThat(row(run, "no record lost")).endsWith("PASS");
        assertThat(row(run, "API recording, trainer step, alternating windows"))
                .contains("not finished within its budget of 200 s").endsWith("SKIP");
        assertThat(row(run, "tiny_kernel_stress 16 streams, alternating windows")).contains("not run: 50 s").endsWith("SKIP");
        assertThat(run.lines).last().asString().startsWith("0 FAIL, 8 SKIP");
    }

    @Test
    void summarizeWithoutADirectoryNamesWhatItNeeds() throws Exception {
        Run run = run(ACCEPTANCE, "--summarize", "/nonexistent/acceptance");

        assertThat(run.exit).isEqualTo(2);
        assertThat(String.join("\n", run.lines)).contains("--summarize needs a directory of logs, got '/nonexistent/acceptance'");
    }

    @Test
    void theEventsScriptsTableShowsTheABTheComparisonTheGateAndTheCostPerArm() throws Exception {
        Run run = run(EVENTS, "--summarize", EVENTS_CANNED.resolve("pass").toString());

        assertThat(run.exit).isZero();
        assertThat(row(run, "events mode, tiny_kernel_stress")).contains("1.0330 [1.0120, 1.0610]").endsWith("PASS");
        assertThat(row(run, "vs CUPTI")).contains("18950/19010 matched", "p95 0.520 us", "max 0.890 us").endsWith("PASS");
        assertThat(row(run, "gated")).contains("gated").endsWith("PASS");
        assertThat(row(run, "cost, agent-events, 1 stream")).contains("204.5 ns/launch (209.0 200.0)").endsWith("INFO");
        assertThat(row(run, "cost, off, 1 stream")).contains("-1.0 ns/launch");
        assertThat(run.lines).last().asString().startsWith("0 FAIL, 0 SKIP");
    }

    @Test
    void theEventsScriptFailsTheBarsMissedAnUngatedDeviceAndAMissingCostRun() throws Exception {
        Run run = run(EVENTS, "--summarize", EVENTS_CANNED.resolve("fail").toString());

        assertThat(run.exit).isEqualTo(1);
        assertThat(row(run, "events mode, tiny_kernel_stress")).contains("1.2000").endsWith("FAIL");
        assertThat(row(run, "vs CUPTI")).contains("max 4000.000 us").endsWith("FAIL");
        assertThat(row(run, "gated")).contains("no gate (cuStreamWaitValue32 returned CUDA error 801)").endsWith("FAIL");
        assertThat(row(run, "paired in-process cost")).contains("no advice_cost lines").endsWith("FAIL");
        assertThat(run.lines).last().asString().startsWith("4 FAIL, 0 SKIP");
    }

    private record Run(int exit, List<String> lines) {
    }

    private static String row(Run run, String bullet) {
        return run.lines.stream().filter(l -> l.contains(bullet)).findFirst().orElseThrow().strip();
    }

    private static Run summarize(String canned) throws Exception {
        return run(ACCEPTANCE, "--summarize", CANNED.resolve(canned).toString());
    }

    private static Run run(String script, String... args) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")) && onPath("python3"), "needs bash and python3");
        List<String> command = new java.util.ArrayList<>(List.of("/bin/bash", ROOT.resolve(script).toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), output.lines().toList());
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
