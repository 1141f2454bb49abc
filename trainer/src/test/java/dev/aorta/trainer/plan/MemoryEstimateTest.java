package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
