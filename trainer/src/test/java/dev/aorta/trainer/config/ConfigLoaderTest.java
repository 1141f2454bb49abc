package dev.aorta.trainer.config;

import dev.aorta.trainer.config.DistributedConfig.CollectiveStreams;
import dev.aorta.trainer.config.FsdpConfig.BackwardPrefetch;
import dev.aorta.trainer.config.FsdpConfig.ShardingStrategy;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLoaderTest {
    /** The repository's config/ directory (tests run in the module directory). */
    static final Path SHIPPED = Path.of("..", "config");

    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path p = dir.resolve("run.yaml");
        Files.writeString(p, text);
        return p;
    }

    @Test
    void theShippedDefaultFileHoldsExactlyTheDefaults() {
        assertThat(ConfigLoader.load(SHIPPED.resolve("default.yaml"), List.of())).isEqualTo(TrainerConfig.defaults());
    }

    @Test
    void defaultsAreAortas() {
        TrainerConfig c = TrainerConfig.defaults();
        assertThat(c.training().batchSize()).isEqualTo(8);
        assertThat(c.training().maxSteps()).isEqualTo(200);
        assertThat(c.training().mixedPrecision()).isEqualTo(MixedPrecision.BF16);
        assertThat(c.optimizer().lr()).isEqualTo(3e-4);
        assertThat(c.optimizer().betas()).containsExactly(0.9, 0.98);
        assertThat(c.scheduler().warmupSteps()).isEqualTo(100);
        assertThat(c.scheduler().totalSteps()).isEqualTo(2000);
        assertThat(c.dataset().vocabSize()).isEqualTo(60_000);
        assertThat(c.model().modelDim()).isEqualTo(768);
        assertThat(c.model().numHeads()).isEqualTo(12);
        assertThat(c.model().numLayers()).isEqualTo(8);
        assertThat(c.fsdp().shardingStrategy()).isEqualTo(ShardingStrategy.FULL_SHARD);
        assertThat(c.fsdp().backwardPrefetch()).isEqualTo(BackwardPrefetch.BACKWARD_PRE);
        assertThat(c.fsdp().limitAllGathers()).isTrue();
        assertThat(c.fsdp().forwardPrefetch()).isTrue();
        assertThat(c.profiling().waitSteps()).isEqualTo(1);
    }

    @Test
    void theStressShapeIsAortasWithOneMicroBatchAndItsOtherKeysAtTheDefaults() {
        TrainerConfig c = ConfigLoader.load(SHIPPED.resolve("mi350_overlap_stress.yaml"), List.of());
        assertThat(c.model().numLayers()).isEqualTo(12);
        assertThat(c.model().modelDim()).isEqualTo(1024);
        assertThat(c.model().mlpHiddenDim()).isEqualTo(4096);
        assertThat(c.model().vocabSize()).isEqualTo(200_000);
        assertThat(c.dataset().vocabSize()).isEqualTo(200_000);
        assertThat(c.dataset().denseDim()).isEqualTo(256);
        assertThat(c.training().batchSize()).isEqualTo(32);
        assertThat(c.training().gradientAccumulation()).isEqualTo(1); // AORTA's 4 is never used by its trainer
        assertThat(c.dataset().sequenceLength()).isEqualTo(128);
        assertThat(c.fsdp().limitAllGathers()).isFalse();
        assertThat(c.optimizer().lr()).isEqualTo(2.0e-4);
        assertThat(c.optimizer().eps()).isEqualTo(TrainerConfig.defaults().optimizer().eps());
        assertThat(c.compile()).isEqualTo(TrainerConfig.defaults().compile());
    }

    @Test
    void theDdpShapeLoads() {
        TrainerConfig c = ConfigLoader.load(SHIPPED.resolve("ddp_fp16.yaml"), List.of());
        assertThat(c.distributed().mode()).isEqualTo(DistributedConfig.Mode.DDP);
        assertThat(c.training().mixedPrecision()).isEqualTo(MixedPrecision.FP16);
        assertThat(c.model().numLayers()).isEqualTo(24);
    }

    @Test
    void overridesApplyInOrderAfterTheFileAndAllOfThemCount() throws IOException {
        Path f = yaml("training:\n  batch_size: 16\nmodel:\n  num_layers: 4\n");
        TrainerConfig c = ConfigLoader.load(f, List.of("training.batch_size=32", "model.num_layers=2",
                "optimizer.betas=[0.8, 0.9]", "fsdp.sharding_strategy=HYBRID_SHARD", "optimizer.lr=1e-4",
                "training.batch_size=64", "compile.options={triton.cudagraphs: true}"));
        assertThat(c.training().batchSize()).isEqualTo(64);
        assertThat(c.model().numLayers()).isEqualTo(2);
        assertThat(c.optimizer().betas()).containsExactly(0.8, 0.9);
        assertThat(c.optimizer().lr()).isEqualTo(1e-4);
        assertThat(c.fsdp().shardingStrategy()).isEqualTo(ShardingStrategy.HYBRID_SHARD);
        assertThat(c.compile().options()).isEqualTo(Map.of("triton.cudagraphs", true));
    }

    @Test
    void aWholeNumberIsAcceptedWhereANumberIsExpected() {
        assertThat(ConfigLoader.load(null, List.of("training.grad_clip_norm=2")).training().gradClipNorm())
                .isEqualTo(2.0);
    }

    @Test
    void ourAdditionsLoad() {
        TrainerConfig c = ConfigLoader.load(null, List.of("dataset.learnable=true",
                "distributed.collective_streams=compute", "distributed.stream_priorities.reducescatter=-2",
                "telemetry.nvml=true", "compile.enabled=true"));
        assertThat(c.dataset().learnable()).isTrue();
        assertThat(c.distributed().collectiveStreams()).isEqualTo(CollectiveStreams.COMPUTE);
        assertThat(c.distributed().streamPriorities().reducescatter()).isEqualTo(-2);
        assertThat(c.telemetry().nvml()).isTrue();
        assertThat(c.compile().enabled()).isTrue();
    }

    @Test
    void anUnknownKeyInAFileNamesFileLineKeyAndTheKnownKeys() throws IOException {
        Path f = yaml("training:\n  batch_size: 16\n  additional_compute_streams: 2\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        f + ":3: unknown key training.additional_compute_streams; section training has ")
                .hasMessageContaining("batch_size, gradient_accumulation");
    }

    @Test
    void anUnknownSectionIsRefused() throws IOException {
        Path f = yaml("trainig:\n  batch_size: 16\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .hasMessageStartingWith(f + ":1: unknown key trainig; the sections are logging, training, ");
    }

    @Test
    void aValueOfTheWrongTypeNamesWhatWasExpected() throws IOException {
        Path f = yaml("model:\n  num_layers: eight\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .hasMessage(f + ":2: model.num_layers is \"eight\", expected a whole number.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("model.dropout=high")))
                .hasMessage("--override model.dropout=high: model.dropout is \"high\", expected a number.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("fsdp.forward_prefetch=1")))
                .hasMessage("--override fsdp.forward_prefetch=1: fsdp.forward_prefetch is 1, expected true or false.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training=3")))
                .hasMessage("--override training=3: training is 3, expected a section (a mapping of keys to values).");
    }

    @Test
    void anEnumValueOutsideItsSetListsTheChoices() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.mixed_precision=fp8")))
                .hasMessage("--override training.mixed_precision=fp8: training.mixed_precision is \"fp8\","
                        + " expected one of bf16, fp16, none.");
    }

    @Test
    void anOutOfRangeValueSaysWhatIsAllowed() throws IOException {
        Path f = yaml("optimizer:\n  lr: -1.0\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .hasMessage(f + ":2: optimizer.lr is -1.0, expected a number above 0.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("optimizer.betas=[0.9]")))
                .hasMessageStartingWith("--override optimizer.betas=[0.9]: optimizer.betas is the list [0.9],"
                        + " expected a list of two numbers in [0, 1)");
    }

    @Test
    void aBatchThatDoesNotSplitIntoMicroBatchesIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.gradient_accumulation=3")))
                .hasMessage("training.batch_size is 8 (its default), expected a multiple of"
                        + " training.gradient_accumulation (3), since each optimizer step splits batch_size 8 into"
                        + " that many equal micro-batches.");
    }

    @Test
    void aDatasetThatDoesNotFitTheModelIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("dataset.vocab_size=70000")))
                .hasMessageStartingWith("--override dataset.vocab_size=70000: dataset.vocab_size is 70000, expected"
                        + " at most model.vocab_size (60000)");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("model.num_heads=5")))
                .hasMessageStartingWith("model.model_dim is 768 (its default), expected a positive multiple of"
                        + " model.num_heads (5)");
    }

    @Test
    void aMalformedOverrideIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.batch_size")))
                .hasMessage("--override training.batch_size: expected key.path=value, like training.batch_size=16.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.batch_size=")))
                .hasMessage("--override training.batch_size=: expected a value after '=' for training.batch_size.");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.bach_size=3")))
                .hasMessageStartingWith("--override training.bach_size=3: unknown key training.bach_size;");
    }

    @Test
    void aMissingOrBrokenFileIsNamed() throws IOException {
        Path missing = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(missing, List.of()))
                .hasMessage("config file " + missing + " does not exist.");
        Path broken = yaml("training:\n  batch_size: [1, 2\n");
        assertThatThrownBy(() -> ConfigLoader.load(broken, List.of()))
                .hasMessageStartingWith(broken + ":").hasMessageContaining("not valid YAML");
        Path twice = yaml("training:\n  epochs: 1\n  epochs: 2\n");
        assertThatThrownBy(() -> ConfigLoader.load(twice, List.of()))
                .hasMessage(twice + ":3: key training.epochs appears twice; expected each key once.");
    }

    @Test
    void anEmptyFileOrSectionKeepsTheDefaults() throws IOException {
        assertThat(ConfigLoader.load(yaml(""), List.of())).isEqualTo(TrainerConfig.defaults());
        assertThat(ConfigLoader.load(yaml("training:\n#  batch_size: 4\nmodel:\n"), List.of()))
                .isEqualTo(TrainerConfig.defaults());
    }

    @Test
    void anEmptyValueIsNotADefault() throws IOException {
        Path f = yaml("training:\n  batch_size:\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .hasMessage(f + ":2: training.batch_size is empty, expected a whole number.");
    }

    @Test
    void aortasAllReduceStressKeysAreReadAndALevelOutsideOneToTenIsRefusedNamingTheKey() {
        TrainerConfig c = ConfigLoader.load(null, List.of("training.inject_allreduce_copies=true",
                "training.allreduce_stress_level=5"));
        assertThat(c.training().injectAllreduceCopies()).isTrue();
        assertThat(c.training().allreduceStressLevel()).isEqualTo(5);
        assertThat(TrainerConfig.defaults().training().injectAllreduceCopies()).isFalse();

        // AORTA clamps 11 to 10 without a word
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("training.allreduce_stress_level=11")))
                .hasMessageContaining("training.allreduce_stress_level").hasMessageContaining("1 to 10");
    }
}
