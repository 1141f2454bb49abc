package dev.aorta.cli;

import dev.aorta.analyzer.Fixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The idle-time, API-call, kernel-launch and copy-bandwidth sections of {@code aorta analyze} on HTA's A100 trace,
 * whose idle time per stream the analyzer's HtaDefinitionsAgreementTest checks against HTA's definition.
 */
class AnalyzeBreakdownsTest {
    private static final String TRACE = "kineto/a100_allreduce_rank0_of2.json.gz";

    @Test
    void textShowsEachSectionForTheWholeTrace() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "whole", Fixtures.file(TRACE).toString());
        assertThat(run.exitCode()).isZero();
        System.out.println(run.out());
        assertThat(run.out()).contains(
                "idle stream 7          542.242 ms: host wait 540.091 ms (2613 gaps), kernel wait 0.000 ms (0),"
                        + " other 2.150 ms (1139)",
                "API calls: ", "cudaLaunchKernel", "kernel launches: n=", "short (gpu < cpu)", "copies DtoD");
    }

    @Test
    void withMoreStreamsThanListedTheRestOfTheIdleTimeIsSummedOnOneLine() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "whole", "--streams", "1",
                Fixtures.file(TRACE).toString());
        assertThat(run.exitCode()).isZero();
        // stream 40 idles longest (583.924 ms, all host wait); stream 7's 542.242 ms go to the summary line
        assertThat(run.out()).contains("idle stream 40 ", "idle of 1 more streams, summed: host wait 540.091 ms,"
                + " kernel wait 0.000 ms, other 2.150 ms").doesNotContain("idle stream 7 ");
    }

    @Test
    void eachStepHasItsOwnSectionsInJsonDetails() {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--format", "json", "--details",
                Fixtures.file(TRACE).toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out().lines()).hasSize(3).allSatisfy(l -> assertThat(l).contains("\"idle_time\":[{\"stream\":",
                "\"host_wait_ns\":", "\"api_calls\":[{\"name\":", "\"kernel_launches\":{\"count\":",
                "\"copy_bandwidth\":[{\"direction\":\"DtoD\""));
    }
}
