package dev.aorta.trainer.telemetry;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TelemetrySummaryTest {
    private static TelemetrySample at(long ms, double powerW, double tempC, double pcieTx) {
        return new TelemetrySample(ms * 1_000_000, 1980, 2619, powerW, tempC, 90, 40, pcieTx, 5);
    }

    @Test
    void theStepsSamplesAreAveragedAndPowerAndTemperatureAlsoGiveTheirMaximum() {
        TelemetrySummary s = TelemetrySummary.of(List.of(at(10, 300, 50, 100), at(20, 500, 54, 300)), null, 25_000_000);
        assertThat(s.samples()).isEqualTo(2);
        assertThat(s.sampleAgeMs()).isCloseTo(5, within(1e-9));
        assertThat(s.powerW()).isEqualTo(400);
        assertThat(s.powerMaxW()).isEqualTo(500);
        assertThat(s.temperatureC()).isEqualTo(52);
        assertThat(s.temperatureMaxC()).isEqualTo(54);
        assertThat(s.smClockMHz()).isEqualTo(1980);
        assertThat(s.pcieTxMBps()).isEqualTo(200);
    }

    @Test
    void aFieldTheDeviceDoesNotOfferStaysOutOfTheAverageAndIsNaNWhenNoSampleHasIt() {
        TelemetrySummary s = TelemetrySummary.of(List.of(at(10, 300, 50, Double.NaN), at(20, Double.NaN, 54,
                Double.NaN)), null, 20_000_000);
        assertThat(s.powerW()).isEqualTo(300);
        assertThat(s.pcieTxMBps()).isNaN();
    }

    @Test
    void aStepWithoutASampleOfItsOwnGetsTheLatestEarlierOneWithItsAge() {
        TelemetrySummary s = TelemetrySummary.of(List.of(), at(10, 300, 50, 7), 18_000_000);
        assertThat(s.samples()).isZero();
        assertThat(s.sampleAgeMs()).isCloseTo(8, within(1e-9));
        assertThat(s.powerW()).isEqualTo(300);
        assertThat(TelemetrySummary.of(List.of(), null, 18_000_000)).isNull();
    }
}
