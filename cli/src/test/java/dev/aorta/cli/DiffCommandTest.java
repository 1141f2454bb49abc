package dev.aorta.cli;

import dev.aorta.analyzer.Fixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code aorta diff} on HTA's public traces. */
class DiffCommandTest {
    private static final String A100 = "kineto/a100_allreduce_rank0_of2.json.gz";

    @Test
    void aTraceAgainstItselfHasNoChangeAndNothingNewOrVanished() {
        String trace = Fixtures.file(A100).toString();
        CliRunner.Outcome run = CliRunner.run(null, "diff", trace, trace);
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("per rank-iteration", "(+0.0%)", "covering 100.0% of A's time and 100.0% of B's",
                "0 new in B (0.000 ms), 0 vanished from A (0.000 ms)", "+0.000");
        assertThat(run.out()).doesNotContain("[new]", "[vanished]", "little in common");
    }

    @Test
    void tracesOfDifferentModelsSayHowLittleTheyShareInsteadOfListingRows() {
        CliRunner.Outcome run = CliRunner.run(null, "diff", Fixtures.file(A100).toString(),
                Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz").toString());
        assertThat(run.exitCode()).isZero();
        System.out.println(run.out());
        assertThat(run.out()).contains("A and B have little in common: the kernel names they share carry",
                "--all lists them");
        assertThat(run.out()).doesNotContain("delta ms", "[new]");
        CliRunner.Outcome listed = CliRunner.run(null, "diff", "--all", Fixtures.file(A100).toString(),
                Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz").toString());
        assertThat(listed.out()).contains("delta ms", "[new] ", "[vanished] ");
    }

    @Test
    void jsonHasTheSharesAndTheRows() {
        String trace = Fixtures.file(A100).toString();
        CliRunner.Outcome run = CliRunner.run(null, "diff", "--format", "json", "--top", "3", trace, trace);
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("\"little_in_common\":false", "\"shared_time_a\":1.0", "\"rank_iterations_a\":3",
                "\"status\":\"both\"", "\"delta_ns\":0.0");
    }

    @Test
    void aMissingTraceIsOneClearError() {
        CliRunner.Outcome run = CliRunner.run(null, "diff", "no-such-trace.json", Fixtures.file(A100).toString());
        assertThat(run.exitCode()).isEqualTo(2);
        System.out.println(run.err());
        assertThat(run.err()).contains("no-such-trace.json").doesNotContain("Exception", "\tat ");
    }
}
