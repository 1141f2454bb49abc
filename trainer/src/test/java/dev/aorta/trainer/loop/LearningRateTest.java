package dev.aorta.trainer.loop;

import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LearningRateTest {
    private static LearningRate of(String... overrides) {
        TrainerConfig c = ConfigLoader.load(null, List.of(overrides));
        return new LearningRate(c.optimizer(), c.scheduler());
    }

    @Test
    void warmsUpLinearlyThenDecaysToZero() {
        LearningRate lr = of("optimizer.lr=0.001", "scheduler.warmup_steps=10", "scheduler.total_steps=110");
        assertThat(lr.at(0)).isCloseTo(0.001 * 1 / 10, within(1e-15));
        assertThat(lr.at(4)).isCloseTo(0.001 * 5 / 10, within(1e-15));
        assertThat(lr.at(9)).isCloseTo(0.001, within(1e-15));
        assertThat(lr.at(10)).isCloseTo(0.001, within(1e-15));
        assertThat(lr.at(59)).isCloseTo(0.001 * (1 - 49.0 / 99), within(1e-15));
        assertThat(lr.at(109)).isZero();
        assertThat(lr.at(500)).as("after the schedule").isZero();
        for (int s = 10; s < 109; s++) {
            assertThat(lr.at(s + 1)).isLessThan(lr.at(s));
        }
    }

    @Test
    void theDefaultsPeakAtStepOneHundred() {
        LearningRate lr = of();
        assertThat(lr.at(99)).isCloseTo(3e-4, within(1e-15));
        assertThat(lr.at(199)).isLessThan(3e-4).isGreaterThan(2.8e-4);
    }

    @Test
    void withoutTotalStepsTheRateIsConstant() {
        LearningRate lr = of("scheduler.total_steps=0");
        assertThat(lr.at(0)).isEqualTo(3e-4);
        assertThat(lr.at(10_000)).isEqualTo(3e-4);
    }
}
