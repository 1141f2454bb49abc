package dev.aorta.model.reference;

import dev.aorta.model.LrSchedule;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class RefOptimTest {

    @Test
    void theFirstAdamWStepMovesEachWeightByLrTimesTheGradientsSignAfterDecay() {
        double[] p = {1, -2, 0.5};
        double[] g = {0.3, -4, 1e-3};
        double[] m = new double[3];
        double[] v = new double[3];
        RefOptim.adamw(p, g, m, v, 1, 0.1, 0.9, 0.999, 0, 0.01);
        // bias correction makes m̂ = g and v̂ = g², so with eps = 0 the update is lr·sign(g)
        assertThat(p[0]).isCloseTo(1 * (1 - 0.001) - 0.1, within(1e-12));
        assertThat(p[1]).isCloseTo(-2 * (1 - 0.001) + 0.1, within(1e-12));
        assertThat(p[2]).isCloseTo(0.5 * (1 - 0.001) - 0.1, within(1e-12));
    }

    @Test
    void secondStepFollowsTheMomentRecurrences() {
        double[] p = {1};
        double[] m = {0};
        double[] v = {0};
        RefOptim.adamw(p, new double[] {1}, m, v, 1, 0.01, 0.9, 0.99, 1e-8, 0);
        RefOptim.adamw(p, new double[] {-1}, m, v, 2, 0.01, 0.9, 0.99, 1e-8, 0);
        assertThat(m[0]).isCloseTo(0.9 * 0.1 - 0.1, within(1e-15));
        assertThat(v[0]).isCloseTo(0.99 * 0.01 + 0.01, within(1e-15));
        double mhat = m[0] / (1 - 0.81);
        double vhat = v[0] / (1 - 0.9801);
        // step 1 moved p by lr·1/(1 + eps): 1e-10 off lr, hence the tolerance
        assertThat(p[0]).isCloseTo(1 - 0.01 - 0.01 * mhat / (Math.sqrt(vhat) + 1e-8), within(1e-9));
    }

    @Test
    void clipScalesOnlyAboveTheMaximum() {
        double norm = RefOptim.globalNorm(List.of(new double[] {3}, new double[] {4, 0}));
        assertThat(norm).isEqualTo(5);
        assertThat(RefOptim.clipCoefficient(norm, 1)).isCloseTo(0.2, within(1e-6));
        assertThat(RefOptim.clipCoefficient(norm, 10)).isEqualTo(1);
    }

    @Test
    void scheduleWarmsUpLinearlyThenDecaysToTheMinimumOnTheLastStep() {
        LrSchedule s = new LrSchedule(1e-3, 1e-4, 4, 14);
        assertThat(s.lr(0)).isCloseTo(2.5e-4, within(1e-15));
        assertThat(s.lr(3)).isCloseTo(1e-3, within(1e-15));
        assertThat(s.lr(4)).isCloseTo(1e-3, within(1e-15));
        assertThat(s.lr(9)).isCloseTo(1e-3 + 5.0 / 9 * (1e-4 - 1e-3), within(1e-15));
        assertThat(s.lr(13)).isCloseTo(1e-4, within(1e-15));
        assertThatThrownBy(() -> s.lr(14)).hasMessageContaining("step 14 outside [0, 14)");
        assertThat(new LrSchedule(1, 0, 0, 1).lr(0)).isEqualTo(1);
    }
}
