package dev.aorta.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** torch.amp.GradScaler's update rule, step by step. */
class LossScalerTest {

    @Test
    void growsAfterTheIntervalOfCleanSteps() {
        LossScaler s = new LossScaler(1024, 2, 0.5, 3);
        assertThat(s.update(false)).isTrue();
        assertThat(s.update(false)).isTrue();
        assertThat(s.scale()).isEqualTo(1024f);
        assertThat(s.update(false)).isTrue();
        assertThat(s.scale()).isEqualTo(2048f);
        // the count starts again after growing
        s.update(false);
        s.update(false);
        assertThat(s.scale()).isEqualTo(2048f);
        s.update(false);
        assertThat(s.scale()).isEqualTo(4096f);
    }

    @Test
    void overflowSkipsTheStepBacksOffAndRestartsTheCount() {
        LossScaler s = new LossScaler(1024, 2, 0.5, 3);
        s.update(false);
        s.update(false);
        assertThat(s.update(true)).isFalse();
        assertThat(s.scale()).isEqualTo(512f);
        assertThat(s.update(true)).isFalse();
        assertThat(s.scale()).isEqualTo(256f);
        // two clean steps after the overflow are not yet an interval, although four clean steps were taken in all
        s.update(false);
        s.update(false);
        assertThat(s.scale()).isEqualTo(256f);
        s.update(false);
        assertThat(s.scale()).isEqualTo(512f);
    }

    @Test
    void torchDefaults() {
        LossScaler s = LossScaler.torchDefaults();
        assertThat(s.scale()).isEqualTo(65536f);
        for (int i = 0; i < 1999; i++) {
            s.update(false);
        }
        assertThat(s.scale()).isEqualTo(65536f);
        s.update(false);
        assertThat(s.scale()).isEqualTo(131072f);
    }

    @Test
    void rejectsFactorsThatWouldNotAdapt() {
        assertThatThrownBy(() -> new LossScaler(1024, 1, 0.5, 10)).hasMessageContaining("growthFactor > 1");
        assertThatThrownBy(() -> new LossScaler(1024, 2, 1, 10)).hasMessageContaining("backoffFactor");
        assertThatThrownBy(() -> new LossScaler(0, 2, 0.5, 10)).hasMessageContaining("initScale > 0");
    }
}
