package dev.aorta.core.metric;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class PercentilesTest {

    @Test
    void interpolatesLinearlyBetweenClosestRanksLikeNumpy() {
        // numpy.percentile([1, 2, 3, 4], 50) == 2.5; ([10, 20, 30], 95) == 29.0; (1..10, 95) == 9.55
        assertThat(Percentiles.of(new double[] {4, 1, 3, 2}, 50)).isEqualTo(2.5);
        assertThat(Percentiles.of(new double[] {10, 20, 30}, 95)).isCloseTo(29.0, within(1e-12));
        assertThat(Percentiles.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95)).isCloseTo(9.55, within(1e-12));
        assertThat(Percentiles.of(new double[] {7}, 99)).isEqualTo(7);
    }

    @Test
    void summaryUsesPopulationStandardDeviation() {
        SampleStats s = SampleStats.of(new double[] {2, 4, 4, 4, 5, 5, 7, 9});
        assertThat(s.mean()).isEqualTo(5);
        assertThat(s.std()).isEqualTo(2);  // numpy.std default (ddof=0)
        assertThat(s.min()).isEqualTo(2);
        assertThat(s.max()).isEqualTo(9);
        assertThat(s.p50()).isEqualTo(4.5);
        assertThat(s.p99()).isCloseTo(8.86, within(1e-12));
    }

    @Test
    void rejectsEmptySamplesAndPercentilesOutOfRange() {
        assertThatThrownBy(() -> SampleStats.of(new double[0])).hasMessageContaining("no values");
        assertThatThrownBy(() -> Percentiles.of(new double[] {1}, 101)).hasMessageContaining("[0, 100]");
    }
}
