package dev.aorta.trainer.run;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What compile.enabled refuses before any GPU work; the capture itself is checked by scripts/trainer-extras-gpu.sh. */
class GraphedStepTest {
    private static TrainerConfig config(String... overrides) {
        return ConfigLoader.load(null, List.of(overrides));
    }

    @Test
    void oneGpuInBf16OrFp32IsCaptured() {
        assertThatCode(() -> GraphedStep.requireSupported(config("compile.enabled=true"), false))
                .doesNotThrowAnyException();
        assertThatCode(() -> GraphedStep.requireSupported(config("compile.enabled=true",
                "training.mixed_precision=none", "training.gradient_accumulation=2"), false)).doesNotThrowAnyException();
    }

    @Test
    void fp16IsRefusedNamingTheKeys() {
        assertThatThrownBy(() -> GraphedStep.requireSupported(config("compile.enabled=true",
                "training.mixed_precision=fp16"), false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("compile.enabled").hasMessageContaining("training.mixed_precision fp16")
                .hasMessageContaining("loss scaler");
    }

    @Test
    void aLaunchedRankIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> GraphedStep.requireSupported(config("compile.enabled=true"), true))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("compile.enabled is true, but a data-parallel rank");
        assertThatCode(() -> GraphedStep.requireSupported(config("training.mixed_precision=fp16"), true))
                .doesNotThrowAnyException();
    }
}
