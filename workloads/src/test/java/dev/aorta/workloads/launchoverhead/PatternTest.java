package dev.aorta.workloads.launchoverhead;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PatternTest {
    @Test
    void listsParseInOrderWithoutDuplicatesAndAllMeansEvery() {
        assertThat(Pattern.parseList("--patterns", "balanced, argmin,balanced"))
                .containsExactly(Pattern.BALANCED, Pattern.ARGMIN);
        assertThat(Pattern.parseList("--patterns", "all")).containsExactly(Pattern.values());
    }

    @Test
    void anUnknownPatternNamesTheOptionAndTheKnownOnes() {
        assertThatThrownBy(() -> Pattern.parseList("--patterns", "argmin,allreduce"))
                .hasMessage("--patterns: unknown pattern 'allreduce'; known: argmin, balanced, all_reduce, combined or all");
    }

    @Test
    void collectivePatternsOnOneGpuAreSkippedWithTheReason() {
        assertThat(Pattern.ARGMIN.skipReason(1)).isEmpty();
        assertThat(Pattern.BALANCED.skipReason(1)).isEmpty();
        assertThat(Pattern.ALL_REDUCE.skipReason(1))
                .hasValue("needs 2 or more GPUs (ranks) and a communicator; this run has 1 rank "
                        + "(start it under aorta launch --nproc-per-node N, torchrun or srun)");
        assertThat(Pattern.COMBINED.skipReason(1)).isPresent();
    }

    @Test
    void collectivePatternsRunWithTwoOrMoreRanks() {
        assertThat(Pattern.ALL_REDUCE.skipReason(2)).isEmpty();
        assertThat(Pattern.COMBINED.skipReason(4)).isEmpty();
        assertThat(Pattern.ARGMIN.skipReason(2)).isEmpty();
    }

    @Test
    void shapesThatCannotBeBalancedAreRejectedNamingTheOptions() {
        assertThatThrownBy(() -> new CodebookShape(64, 50, 100, 3))
                .hasMessageStartingWith("--batch 100 must be a multiple of --centroids 64");
        assertThatThrownBy(() -> new CodebookShape(64, 0, 128, 3)).hasMessage("--dim must be a positive integer, got 0");
        assertThat(CodebookShape.SEED.rowsPerCentroid()).isEqualTo(1);
    }
}
