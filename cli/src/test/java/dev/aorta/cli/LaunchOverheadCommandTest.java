package dev.aorta.cli;

import dev.aorta.workloads.session.GpuUnavailableException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad input is refused before the GPU is opened, in one sentence naming the option. */
class LaunchOverheadCommandTest {
    private boolean opened;

    private CliRunner.Outcome aorta(String... args) {
        return CliRunner.run(device -> {
            opened = true;
            throw new GpuUnavailableException("no CUDA driver found: test");
        }, args);
    }

    @Test
    void aBatchThatIsNotAMultipleOfTheCentroidsIsRefused() {
        CliRunner.Outcome o = aorta("launch-overhead", "--centroids", "64", "--batch", "100");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).startsWith("aorta launch-overhead: --batch 100 must be a multiple of --centroids 64");
        assertThat(opened).isFalse();
    }

    @Test
    void unknownPatternsAndNonPositiveTimesAreRefused() {
        assertThat(aorta("launch-overhead", "--patterns", "argmin,ring").err())
                .contains("--patterns: unknown pattern 'ring'; known: argmin, balanced, all_reduce, combined or all");
        assertThat(aorta("launch-overhead", "--seconds", "0").err()).contains("--seconds must be a positive number");
        assertThat(aorta("launch-overhead", "--warmup-steps", "-1").err()).contains("--warmup-steps must be 0 or more");
        assertThat(opened).isFalse();
    }

    @Test
    void communicationTimeoutsBelowOneSecondAreRefusedNamingTheOptions() {
        CliRunner.Outcome o = aorta("launch-overhead", "--comm-timeout", "0");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--comm-timeout and --rendezvous-timeout must be 1 second or more");
        assertThat(opened).isFalse();
    }

    @Test
    void aortaRunTakesTheCommandsOptionsAndChecksThemTheSameWay() {
        CliRunner.Outcome o = aorta("run", "launch_overhead", "--patterns", "argmin,ring");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--patterns: unknown pattern 'ring'");
        assertThat(aorta("run", "launch_overhead", "--streams", "2").err())
                .contains("--streams 2 is outside the range of launch_overhead: 1..1 streams");
        assertThat(aorta("run", "launch_overhead", "-i", "5").err())
                .contains("--iterations is not an option of launch_overhead (aorta launch-overhead --help lists its options)");
        assertThat(opened).isFalse();
        assertThat(aorta("run", "launch_overhead", "--patterns", "argmin").err()).contains("no CUDA driver found");
    }

    @Test
    void withoutAGpuTheErrorSaysWhy() {
        CliRunner.Outcome o = aorta("launch-overhead", "--patterns", "argmin");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("no CUDA driver found");
    }
}
