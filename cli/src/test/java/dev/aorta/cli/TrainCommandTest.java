package dev.aorta.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@code aorta train} refuses before it touches a GPU (the training itself runs on a GPU host only). */
class TrainCommandTest {
    @Test
    void aBadOverrideIsOneSentenceNamingTheKeyAndNoStackTrace() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--override", "training.mixed_precision=fp8");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("aorta train: --override training.mixed_precision=fp8:")
                .contains("expected one of bf16, fp16, none").doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void anEpochWithoutOneWholeBatchIsRefused() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--override", "dataset.num_samples=4",
                "training.batch_size=8", "training.max_steps=0");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("dataset.num_samples is 4, expected at least training.batch_size (8)");
    }

    @Test
    void aMultiRankLaunchIsRefusedSayingThatItIsNotBuiltYet() {
        assertThatThrownBy(() -> TrainCommand.requireSingleRank(Map.of("WORLD_SIZE", "4")))
                .hasMessage("WORLD_SIZE is 4, but aorta train runs on one GPU only: multi-rank (sharded or DDP)"
                        + " training is not built yet; run it without a launcher, or with WORLD_SIZE=1.");
        TrainCommand.requireSingleRank(Map.of("WORLD_SIZE", "1"));
        TrainCommand.requireSingleRank(Map.of());
    }

    @Test
    void helpNamesTheWeightAndBatchFiles() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--config", "--override", "--init-weights", "--save-weights",
                "--save-final-weights", "--dump-batches", "not built yet");
    }
}
