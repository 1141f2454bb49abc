package dev.aorta.workloads.overhead;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class PairedComparisonTest {
    @Test
    void aConstantSlowdownIsItsOwnIntervalWhateverTheRunsAbsoluteTimes() {
        PairedComparison c = PairedComparison.of("x ms", new double[] {1, 2, 4}, new double[] {1.1, 2.2, 4.4}, 0.01);
        assertThat(c.ratio()).isCloseTo(1.1, within(1e-12));
        assertThat(c.ciLow()).isCloseTo(1.1, within(1e-12));
        assertThat(c.ciHigh()).isCloseTo(1.1, within(1e-12));
        assertThat(c.medianA()).isEqualTo(2);
        assertThat(c.medianB()).isEqualTo(2.2);
        assertThat(c.verdict()).isEqualTo(PairedComparison.Verdict.EXCEEDS);
        assertThat(PairedComparison.of("x ms", new double[] {1, 2, 4}, new double[] {1.1, 2.2, 4.4}, 0.2).verdict())
                .isEqualTo(PairedComparison.Verdict.WITHIN);
    }

    @Test
    void theIntervalIsStudentsTOfTheMeanLogRatio() {
        // two pairs, log ratios 0 and ln 1.2: mean ln(1.2)/2, standard error ln(1.2)/2, t(1 df, 97.5%) = 12.7062
        PairedComparison c = PairedComparison.of("x ms", new double[] {10, 10}, new double[] {10, 12}, 0.01);
        double half = Math.log(1.2) / 2;
        assertThat(c.ratio()).isCloseTo(Math.sqrt(1.2), within(1e-12));
        assertThat(c.ciLow()).isCloseTo(Math.exp(half - 12.7062047 * half), within(1e-6));
        assertThat(c.ciHigh()).isCloseTo(Math.exp(half + 12.7062047 * half), within(1e-6));
        assertThat(c.verdict()).isEqualTo(PairedComparison.Verdict.INCONCLUSIVE);
    }

    @Test
    void noiseBelowTheThresholdIsWithinIt() {
        double[] a = {100, 101, 99, 100.5, 99.5};
        double[] b = {100.2, 101.1, 99.3, 100.4, 99.8};
        assertThat(PairedComparison.of("x ms", a, b, 0.01).verdict()).isEqualTo(PairedComparison.Verdict.WITHIN);
    }

    @Test
    void oneRunOrANonPositiveTimeCannotBeCompared() {
        assertThatThrownBy(() -> PairedComparison.of("x ms", new double[] {1}, new double[] {1}, 0.01))
                .hasMessageContaining("needs at least 2 A and 2 B values");
        assertThatThrownBy(() -> PairedComparison.of("x ms", new double[] {1, 0}, new double[] {1, 1}, 0.01))
                .hasMessageContaining("run 2 has a non-positive value");
    }
}
