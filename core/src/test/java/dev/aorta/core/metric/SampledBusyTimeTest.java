package dev.aorta.core.metric;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SampledBusyTimeTest {

    @Test
    void theEstimateIsLaunchesTimesTheSampledMean() {
        SampledBusyTime b = SampledBusyTime.of(100, new double[] {2_000, 4_000});

        assertThat(b.busyNs()).isEqualTo(300_000);
        assertThat(b.sampled()).isEqualTo(2);
        assertThat(b.launches()).isEqualTo(100);
        // s = 1414.2, se = 100 * 1414.2 / sqrt(2) * sqrt(0.98) = 98 995, t(1) = 12.706
        assertThat(b.highNs() - b.busyNs()).isCloseTo(12.706 * 98_994.9, within(1.0));
    }

    @Test
    void sampledEveryLaunchIsExact() {
        SampledBusyTime b = SampledBusyTime.of(3, new double[] {1_000, 5_000, 9_000});

        assertThat(b.busyNs()).isEqualTo(15_000);
        assertThat(b.lowNs()).isEqualTo(15_000);
        assertThat(b.highNs()).isEqualTo(15_000);
    }

    @Test
    void oneSampleGivesAnEstimateWithoutInterval() {
        SampledBusyTime b = SampledBusyTime.of(50, new double[] {3_000});

        assertThat(b.busyNs()).isEqualTo(150_000);
        assertThat(b.hasInterval()).isFalse();
    }

    @Test
    void noSampleOrMoreSamplesThanLaunchesIsRefused() {
        assertThatThrownBy(() -> SampledBusyTime.of(10, new double[0])).hasMessageContaining("got 0");
        assertThatThrownBy(() -> SampledBusyTime.of(1, new double[] {1, 2})).hasMessageContaining("of 1 launches");
    }

    @Test
    void everyNthLaunchOfAMixedStreamGivesAnIntervalThatHoldsTheTrueBusyTimeAboutNinetyFivePercentOfTheTime() {
        // streams of 2 000 kernels: 80 % short (3-5 µs), 20 % long (20-60 µs), in random order; every 50th sampled
        Random random = new Random(16);
        int trials = 1000;
        int covered = 0;
        double relativeErrorSum = 0;
        for (int trial = 0; trial < trials; trial++) {
            double[] durations = new double[2_000];
            double truth = 0;
            for (int i = 0; i < durations.length; i++) {
                durations[i] = random.nextDouble() < 0.8 ? 3_000 + 2_000 * random.nextDouble()
                        : 20_000 + 40_000 * random.nextDouble();
                truth += durations[i];
            }
            int offset = random.nextInt(50);
            double[] sample = new double[40];
            for (int k = 0; k < sample.length; k++) {
                sample[k] = durations[offset + 50 * k];
            }
            SampledBusyTime b = SampledBusyTime.of(durations.length, sample);
            if (b.lowNs() <= truth && truth <= b.highNs()) {
                covered++;
            }
            relativeErrorSum += (b.busyNs() - truth) / truth;
        }

        assertThat((double) covered / trials).isBetween(0.92, 0.975);
        assertThat(relativeErrorSum / trials).as("mean relative error: the estimate is unbiased").isBetween(-0.02, 0.02);
    }

    @Test
    void studentsQuantileComesFromTheTableThenTheExpansion() {
        assertThat(SampledBusyTime.t975(1)).isEqualTo(12.706);
        assertThat(SampledBusyTime.t975(30)).isEqualTo(2.042);
        assertThat(SampledBusyTime.t975(31)).isCloseTo(2.0395, within(0.001));
        assertThat(SampledBusyTime.t975(100)).isCloseTo(1.9840, within(0.001));
        assertThat(SampledBusyTime.t975(1_000_000)).isCloseTo(1.95996, within(0.0001));
    }
}
