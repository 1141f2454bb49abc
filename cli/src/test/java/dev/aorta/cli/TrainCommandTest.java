package dev.aorta.cli;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
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
    void aMultiRankLaunchOfAnyLauncherIsRefusedNamingTheRank() {
        TrainerConfig cfg = TrainerConfig.defaults();
        Map<String, String> torchrun = Map.of("RANK", "2", "WORLD_SIZE", "4", "LOCAL_WORLD_SIZE", "4",
                "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29500");
        assertThatThrownBy(() -> TrainCommand.requireSingleRank(cfg, torchrun))
                .hasMessage("rank 2 of 4 (torchrun (RANK/WORLD_SIZE)): aorta train runs on one GPU only: multi-rank"
                        + " (sharded or DDP) training is not built yet; run one rank (without a launcher, NPROC=1"
                        + " scripts/launch_cuda.sh, torchrun --nproc-per-node 1 or srun -n 1).");
        Map<String, String> slurm = Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID", "1",
                "SLURM_NTASKS_PER_NODE", "4", "SLURM_JOB_NODELIST", "gpu[01-02]");
        assertThatThrownBy(() -> TrainCommand.requireSingleRank(cfg, slurm))
                .hasMessageStartingWith("rank 5 of 8 (Slurm): aorta train runs on one GPU only");
        TrainCommand.requireSingleRank(cfg, Map.of("WORLD_SIZE", "1", "RANK", "0"));
        TrainCommand.requireSingleRank(cfg, Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "1"));
        TrainCommand.requireSingleRank(cfg, Map.of());
    }

    @Test
    void aWorldThatTheHybridGroupDoesNotDivideIsNamedBeforeTheMultiRankRefusal() {
        TrainerConfig hybrid = ConfigLoader.load(null,
                List.of("fsdp.sharding_strategy=hybrid_shard", "fsdp.hybrid_shard_gpus_per_node=4"));
        Map<String, String> six = Map.of("RANK", "0", "WORLD_SIZE", "6", "LOCAL_WORLD_SIZE", "6",
                "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500");
        assertThatThrownBy(() -> TrainCommand.requireSingleRank(hybrid, six))
                .isInstanceOf(ConfigException.class)
                .hasMessage("rank 0 of 6 (torchrun (RANK/WORLD_SIZE)): fsdp.hybrid_shard_gpus_per_node (or"
                        + " LOCAL_WORLD_SIZE) is 4, expected a positive divisor of the world size 6, since hybrid_shard"
                        + " splits the ranks into equal node groups.");
    }

    @Test
    void batchSizeNotSplittingIntoTheMicroBatchesIsOneSentenceNamingBothKeys() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--override", "training.batch_size=10",
                "training.gradient_accumulation=4");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).contains("training.batch_size is 10", "training.gradient_accumulation (4)")
                .doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void helpNamesTheWeightAndBatchFiles() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--config", "--override", "--init-weights", "--save-weights",
                "--save-final-weights", "--dump-batches", "not built yet");
    }
}
