package dev.aorta.workloads.metrics;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ScalingAndBootstrapTest {

    @Test
    void linearScalingHasEfficiencyOneAndNoInflection() {
        ScalingAnalysis s = ScalingAnalysis.of(new int[] {1, 2, 4}, new double[] {10, 20, 40});
        assertThat(s.points()).extracting(ScalingAnalysis.Point::efficiency).containsExactly(1.0, 1.0, 1.0);
        assertThat(s.inflectionStreams()).isNull();
        assertThat(s.bestStreams()).isEqualTo(4);
    }

    @Test
    void inflectionIsTheFirstCountWhoseEfficiencyFallsBelowEightyPercentOfThePrevious() {
        // efficiencies 1, 0.9, 0.85 (>= 0.8*0.9), 0.5 (< 0.8*0.85): inflection at 8
        ScalingAnalysis s = ScalingAnalysis.of(new int[] {1, 2, 4, 8}, new double[] {10, 18, 34, 40});
        assertThat(s.points().get(1).efficiency()).isCloseTo(0.9, within(1e-12));
        assertThat(s.points().get(3).efficiency()).isCloseTo(0.5, within(1e-12));
        assertThat(s.inflectionStreams()).isEqualTo(8);
        assertThat(s.bestStreams()).isEqualTo(8);
    }

    @Test
    void efficiencyIsRelativeToTheFirstPointsThroughputPerStream() {
        ScalingAnalysis s = ScalingAnalysis.of(new int[] {2, 4}, new double[] {10, 10});
        assertThat(s.points().get(1).efficiency()).isEqualTo(0.5);
    }

    private static double[] noisy(long seed, int n, double mean) {
        Random r = new Random(seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = mean * (1 + 0.02 * r.nextGaussian());
        }
        return v;
    }

    @Test
    void samplesFromOneDistributionGiveAnIntervalAroundNoChange() {
        Bootstrap.Interval ci = Bootstrap.relativeChange(noisy(1, 100, 5), noisy(2, 100, 5), Bootstrap.mean());
        assertThat(ci.excludesZero()).isFalse();
        assertThat(ci.low()).isLessThan(0);
        assertThat(ci.high()).isGreaterThan(0);
    }

    @Test
    void doubledTimesGiveAnIntervalAroundOneHundredPercent() {
        double[] base = noisy(3, 100, 5);
        double[] doubled = base.clone();
        for (int i = 0; i < doubled.length; i++) {
            doubled[i] *= 2;
        }
        Bootstrap.Interval ci = Bootstrap.relativeChange(base, doubled, Bootstrap.percentile(99));
        assertThat(ci.excludesZero()).isTrue();
        assertThat(ci.low()).isGreaterThan(0.8);
        assertThat(ci.high()).isLessThan(1.2);
    }
}
