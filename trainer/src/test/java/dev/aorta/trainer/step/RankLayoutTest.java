package dev.aorta.trainer.step;

import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.GradientBucket;
import dev.aorta.trainer.plan.ModelParameters;
import dev.aorta.trainer.plan.ParallelMode;
import dev.aorta.trainer.plan.ParameterSpec;
import dev.aorta.trainer.plan.ShardingPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.BitSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RankLayoutTest {
    private static ShardingPlan plan(String mode, int world, int group, int bucketCapMb) {
        TrainerConfig c = ConfigLoader.load(null, List.of("model.num_layers=3", "model.model_dim=256",
                "model.num_heads=2", "model.mlp_hidden_dim=512", "model.vocab_size=1000", "dataset.vocab_size=1000",
                mode.equals("ddp") ? "distributed.mode=ddp" : "fsdp.sharding_strategy=" + mode));
        return ShardingPlan.of(ModelParameters.of(c.model()), ParallelMode.of(c.distributed(), c.fsdp(), world),
                world, group, bucketCapMb);
    }

    @ParameterizedTest
    @CsvSource({"full_shard,1,1", "full_shard,3,3", "full_shard,4,4", "shard_grad_op,2,2", "hybrid_shard,4,2",
            "hybrid_shard,4,1", "no_shard,3,3", "ddp,2,2"})
    void theOwnedPiecesOfAShardGroupCoverEveryParameterElementOnce(String mode, int world, int group) {
        ShardingPlan plan = plan(mode, world, group, 25);
        for (int first = 0; first < world; first += plan.shardGroupSize()) {
            for (FlatUnit unit : plan.units()) {
                for (FlatUnit.Slot slot : unit.slots()) {
                    BitSet covered = new BitSet();
                    for (int r = first; r < first + plan.shardGroupSize(); r++) {
                        RankLayout layout = new RankLayout(plan, r);
                        for (RankLayout.OwnedPiece p : layout.ownedPieces(unit)) {
                            if (p.param().equals(slot.param())) {
                                int from = (int) p.paramOffset();
                                int to = from + (int) p.params().count();
                                assertThat(covered.get(from, to).isEmpty()).as(slot.param().name() + " owned twice")
                                        .isTrue();
                                covered.set(from, to);
                                // the piece sits where the parameter's elements sit in the rank's shard
                                long shardStart = layout.ownedRange(unit).start();
                                assertThat(p.params().offset() - layout.ownedParams(unit).offset() + shardStart)
                                        .isEqualTo(slot.offset() + p.paramOffset());
                            }
                        }
                    }
                    assertThat(covered.cardinality()).as(slot.param().name()).isEqualTo((int) slot.param().numel());
                }
            }
        }
    }

    @Test
    void withoutShardingTheRankOwnsWholeParametersInItsFullBuffers() {
        RankLayout layout = new RankLayout(plan("no_shard", 2, 2, 25), 1);
        FlatUnit unit = layout.plan().layer(1);
        assertThat(layout.ownedParams(unit)).isEqualTo(layout.gathered(unit));
        assertThat(layout.ownedGrads(unit)).isEqualTo(layout.localGrads(unit));
        assertThat(layout.ownedPieces(unit)).allMatch(RankLayout.OwnedPiece::whole).hasSize(unit.slots().size());
    }

    @Test
    void ddpBucketRunsCoverEveryParameterOnceAndNothingOfAnotherBucket() {
        ShardingPlan plan = plan("ddp", 2, 2, 1);
        assertThat(plan.buckets()).hasSizeGreaterThan(3);
        RankLayout layout = new RankLayout(plan, 0);
        BitSet[] covered = new BitSet[plan.units().size()];
        for (int u = 0; u < covered.length; u++) {
            covered[u] = new BitSet();
        }
        for (GradientBucket bucket : plan.buckets()) {
            for (Region run : layout.bucketRuns(bucket)) {
                assertThat(run.arena()).isEqualTo(Arena.GRADS);
                assertThat(covered[run.unit()].get((int) run.offset(), (int) run.end()).isEmpty())
                        .as("bucket " + bucket.index() + " overlaps an earlier bucket").isTrue();
                covered[run.unit()].set((int) run.offset(), (int) run.end());
            }
        }
        for (ParameterSpec p : ModelParameters.of(ConfigLoader.load(null, List.of("model.num_layers=3",
                "model.model_dim=256", "model.num_heads=2", "model.mlp_hidden_dim=512", "model.vocab_size=1000",
                "dataset.vocab_size=1000")).model())) {
            RankLayout.Located l = layout.locate(p.name());
            int from = (int) l.slot().offset();
            assertThat(covered[l.unit()].get(from, from + (int) p.numel()).cardinality()).as(p.name())
                    .isEqualTo((int) p.numel());
        }
    }

    @Test
    void aParameterThePlanDoesNotListIsNamed() {
        RankLayout layout = new RankLayout(plan("full_shard", 2, 2, 25), 0);
        assertThatThrownBy(() -> layout.locate("encoder.layers.9.linear1.weight"))
                .hasMessageContaining("encoder.layers.9.linear1.weight").hasMessageContaining("does not list");
    }
}
