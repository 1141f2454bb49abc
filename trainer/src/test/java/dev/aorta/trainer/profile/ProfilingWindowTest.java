package dev.aorta.trainer.profile;

import dev.aorta.trainer.profile.ProfilingWindow.Phase;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** torch.profiler.schedule's phases, step by step, for AORTA's default window and a few others. */
class ProfilingWindowTest {
    private static List<Phase> phases(ProfilingWindow w, int steps) {
        List<Phase> out = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            out.add(w.phaseOf(s));
        }
        return out;
    }

    @Test
    void aortasDefaultWindowWaitsOneStepWarmsUpOneAndTracesTwoOnce() {
        ProfilingWindow w = new ProfilingWindow(1, 1, 2, 1);
        assertThat(phases(w, 7)).containsExactly(Phase.NONE, Phase.WARMUP, Phase.ACTIVE, Phase.ACTIVE,
                Phase.NONE, Phase.NONE, Phase.NONE);
        assertThat(w.endsCycle(2)).isFalse();
        assertThat(w.endsCycle(3)).isTrue();
        assertThat(w.endsCycle(7)).isFalse();
    }

    @Test
    void cyclesRepeatTheGivenNumberOfTimes() {
        ProfilingWindow w = new ProfilingWindow(2, 0, 1, 3);
        assertThat(phases(w, 11)).containsExactly(Phase.NONE, Phase.NONE, Phase.ACTIVE, Phase.NONE, Phase.NONE,
                Phase.ACTIVE, Phase.NONE, Phase.NONE, Phase.ACTIVE, Phase.NONE, Phase.NONE);
        assertThat(List.of(2L, 5L, 8L)).allMatch(w::endsCycle);
    }

    @Test
    void repeatZeroTracesUntilTrainingEnds() {
        ProfilingWindow w = new ProfilingWindow(0, 1, 1, 0);
        assertThat(w.phaseOf(1_000_001)).isEqualTo(Phase.ACTIVE);
        assertThat(w.endsCycle(1_000_001)).isTrue();
        assertThat(w.phaseOf(1_000_000)).isEqualTo(Phase.WARMUP);
    }

    @Test
    void aWindowWithoutActiveStepsIsRefused() {
        assertThatThrownBy(() -> new ProfilingWindow(1, 1, 0, 1)).hasMessageContaining("active ≥ 1");
    }
}
