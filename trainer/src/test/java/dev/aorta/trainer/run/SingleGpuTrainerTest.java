package dev.aorta.trainer.run;

import dev.aorta.model.ranking.RankingConfig;
import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the one-GPU trainer decides before it touches the device. */
class SingleGpuTrainerTest {
    private static TrainerConfig config(String... overrides) {
        return ConfigLoader.load(null, List.of(overrides));
    }

    @Test
    void maxStepsZeroRunsWholeEpochsOfWholeBatches() {
        // 1000 samples in batches of 24: 41 whole batches per epoch, the last 16 samples dropped
        TrainerConfig c = config("training.max_steps=0", "training.epochs=3", "dataset.num_samples=1000",
                "training.batch_size=24");
        assertThat(SingleGpuTrainer.stepsPerEpoch(c)).isEqualTo(41);
        assertThat(SingleGpuTrainer.plannedSteps(c)).isEqualTo(123);
        assertThat(SingleGpuTrainer.plannedSteps(config("training.max_steps=7"))).isEqualTo(7);
    }

    @Test
    void theModelRunsOneMicroBatchAtATime() {
        RankingConfig r = SingleGpuTrainer.rankingConfig(config("training.batch_size=12",
                "training.gradient_accumulation=3", "model.dropout=0.25"));
        assertThat(r.batch()).isEqualTo(4);
        assertThat(r.dropout()).isEqualTo(0.25f);
    }

    @Test
    void aRunThatCannotFitIsRefusedNamingTheDeviceAndTheKeysThatLowerTheNeed() {
        assertThatThrownBy(() -> SingleGpuTrainer.requireFits(config(), 64L << 20, "GPU 0 (test)"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("GPU 0 (test) has 0.06 GiB free")
                .hasMessageContaining("training.batch_size");
        SingleGpuTrainer.requireFits(config(), 80L << 30, "GPU 0 (test)");
    }
}
