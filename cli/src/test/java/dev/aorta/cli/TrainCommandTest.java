package dev.aorta.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.ParallelMode;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.run.TrainResult;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.overhead.ResultMetrics;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@code aorta train} plans and refuses before it touches a GPU (the training itself runs on a GPU host only). */
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

    private static TrainerConfig config(String... overrides) {
        return ConfigLoader.load(null, List.of(overrides));
    }

    private static DistributedEnvironment launched(int world, int perNode) {
        return DistributedEnvironment.from(Map.of("AORTA_LAUNCHER", "aorta", "RANK", "0", "LOCAL_RANK", "0",
                "WORLD_SIZE", Integer.toString(world), "LOCAL_WORLD_SIZE", Integer.toString(perNode),
                "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500"));
    }

    @Test
    void aLaunchedRankPlansTheConfiguredModeForItsWorld() {
        ShardingPlan plan = TrainCommand.checkedPlan(config("fsdp.sharding_strategy=hybrid_shard"), launched(8, 4));
        assertThat(plan.mode()).isEqualTo(ParallelMode.HYBRID_SHARD);
        assertThat(plan.shardGroupSize()).isEqualTo(4); // LOCAL_WORLD_SIZE, as hybrid_shard_gpus_per_node is 0
        assertThat(TrainCommand.checkedPlan(config("distributed.mode=ddp"), launched(2, 2)).mode())
                .isEqualTo(ParallelMode.DDP);
        // one rank: every FSDP strategy is no_shard, as in FSDP
        assertThat(TrainCommand.checkedPlan(config("fsdp.sharding_strategy=full_shard"), launched(1, 1)).mode())
                .isEqualTo(ParallelMode.NO_SHARD);
    }

    @Test
    void aWorldThatDoesNotSplitIntoHybridGroupsIsRefusedBeforeAnyGpuWork() {
        assertThatThrownBy(() -> TrainCommand.checkedPlan(config("fsdp.sharding_strategy=hybrid_shard",
                "fsdp.hybrid_shard_gpus_per_node=3"), launched(4, 4)))
                .hasMessageContaining("fsdp.hybrid_shard_gpus_per_node").hasMessageContaining("world size 4");
    }

    @Test
    void anEpochMustHoldOneWholeGlobalBatch() {
        assertThatThrownBy(() -> TrainCommand.checkedPlan(config("dataset.num_samples=24", "training.batch_size=8",
                "training.max_steps=0"), launched(4, 4)))
                .hasMessage("dataset.num_samples is 24, expected at least training.batch_size × world size (32),"
                        + " since an epoch is made of whole global batches.");
    }

    @Test
    void theResultFileCarriesTheMedianStepThatAortaOverheadCompares() {
        TrainResult r = new TrainResult(400, 400, 2.5, 0.7, 3.62, 1.9, null, Path.of("artifacts/rank_00_metrics.jsonl"),
                List.of(), 0, null);

        ObjectNode json = TrainCommand.resultJson(r);

        assertThat(json.path("schema").asText()).isEqualTo(ResultJson.TRAIN_SCHEMA);
        assertThat(ResultMetrics.from(json)).containsExactly(Map.entry("train median step ms", 3.62));
        assertThat(json.has("stopped_by")).isFalse();
    }

    @Test
    void helpNamesTheWeightAndBatchFiles() {
        CliRunner.Outcome r = CliRunner.run(null, "train", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--config", "--override", "--init-weights", "--save-weights",
                "--save-final-weights", "--dump-batches", "aorta launch", "--comm-timeout");
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
    void theMemoryLineGivesThePeakAndTheOpsThatHeldMostOfItLargestFirst() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        TrainCommand.printMemory(new dev.aorta.gpu.cuda.MemoryStats(0, 3L << 30, 0, 4L << 30, 10, 2,
                java.util.Map.of("linear", 1L << 30, "attention", 2L << 30)), new java.io.PrintStream(bytes, true));

        assertThat(bytes.toString()).isEqualTo("device memory in tensors: peak 3072 MiB (reserved from the driver 4096"
                + " MiB); at the peak, MiB by op: attention 2048, linear 1024" + System.lineSeparator());
    }
}
