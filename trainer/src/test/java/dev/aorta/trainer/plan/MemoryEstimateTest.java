package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class MemoryEstimateTest {
    private static MemoryEstimate estimate(TrainerConfig c, int world) {
        List<ParameterSpec> params = ModelParameters.of(c.model());
        ShardingPlan plan = ShardingPlan.of(params, ParallelMode.of(c.distributed(), c.fsdp(), world), world,
                c.fsdp().hybridShardGpusPerNode(), c.distributed().bucketCapMb());
        return MemoryEstimate.of(plan, c);
    }

    @Test
    void fullShardKeepsAboutOneWorldthOfTheStatePerRank() {
        TrainerConfig c = TrainerConfig.defaults();
        long total = ModelParameters.of(c.model()).stream().mapToLong(ParameterSpec::numel).sum() * Float.BYTES;
        MemoryEstimate one = estimate(c, 1);
        MemoryEstimate eight = estimate(c, 8);
        assertThat(one.parameters()).isBetween(total, total + 4096);
        assertThat(eight.parameters()).isBetween(total / 8, total / 8 + 4096);
        assertThat(eight.optimizerState()).isEqualTo(2 * eight.parameters());
        assertThat(one.gathered()).as("nothing is gathered on one rank").isZero();
        assertThat(eight.gathered()).isPositive();
    }

    @Test
    void withoutTheGatherLimitEveryLayerMayBeGatheredAtOnce() {
        TrainerConfig limited = TrainerConfig.defaults();
        TrainerConfig unlimited = ConfigLoader.load(null, List.of("fsdp.limit_all_gathers=false"));
        assertThat(estimate(unlimited, 8).gathered()).isGreaterThan(estimate(limited, 8).gathered());
    }

    @Test
    void activationsScaleWithTheMicroBatch() {
        TrainerConfig c = TrainerConfig.defaults();
        TrainerConfig split = ConfigLoader.load(null, List.of("training.gradient_accumulation=4"));
        assertThat(estimate(split, 8).activations() * 4).isEqualTo(estimate(c, 8).activations());
        assertThat(estimate(split, 8).accumulation()).as("no_sync keeps unsharded gradients").isPositive();
    }

    /** AORTA's overlap stress shape with {@code layers} encoder layers and the given precision. */
    private static TrainerConfig stress(int layers, String precision) {
        return ConfigLoader.load(null, List.of("training.batch_size=32", "dataset.sequence_length=128",
                "model.model_dim=1024", "model.num_heads=16", "model.mlp_hidden_dim=4096",
                "model.num_layers=" + layers, "training.mixed_precision=" + precision));
    }

    @Test
    void underAutocastAnEncoderLayerKeepsItsGemmInputsQkvAndPreActivationIn16Bits() {
        long positions = 32 * 128;
        long d = 1024;
        long h = 4096;
        // fp32 in both modes: attention output, two residual sums, logsumexp (16 heads), the norms' mean and
        // 1/std; then, 16-bit under autocast (heads of 64), fp32 without: q, k, v and linear1's pre-activation;
        // and the GEMM inputs read again in backward: input, norm1 output, GELU output, and without autocast the
        // merged heads too (under autocast their 16-bit copy is shared by the layers and written again)
        long fp32Kept = 4 * (3 * d + 16 + 4);
        long bf16Layer = estimate(stress(12, "bf16"), 1).activations() - estimate(stress(11, "bf16"), 1).activations();
        long fp32Layer = estimate(stress(12, "none"), 1).activations() - estimate(stress(11, "none"), 1).activations();
        assertThat(bf16Layer).isEqualTo(positions * (fp32Kept + 2 * (3 * d + h) + 2 * (2 * d + h)));
        assertThat(fp32Layer).isEqualTo(positions * (fp32Kept + 4 * (3 * d + h) + 4 * (3 * d + h)));
        assertThat(bf16Layer / (double) (1 << 20)).as("MiB per layer at the stress shape").isCloseTo(152.3,
                within(0.1));
    }

    @Test
    void aConfigurationThatDoesNotFitIsRefusedWithTheEstimateAndTheFreeMemory() {
        MemoryEstimate e = estimate(TrainerConfig.defaults(), 8);
        assertThatCode(() -> MemoryFit.requireFits(e, e.total(), "GPU 0")).doesNotThrowAnyException();
        assertThatThrownBy(() -> MemoryFit.requireFits(e, 1L << 26, "GPU 0 (NVIDIA H100 80GB HBM3)"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("the configuration needs at least ")
                .hasMessageContaining(" per rank (parameters ")
                .hasMessageContaining("activations ")
                .hasMessageContaining("but GPU 0 (NVIDIA H100 80GB HBM3) has 0.06 GiB free;");
    }
}
