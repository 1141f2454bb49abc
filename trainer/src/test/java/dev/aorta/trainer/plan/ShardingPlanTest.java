package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.ModelConfig;
import dev.aorta.trainer.config.TrainerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShardingPlanTest {
    /** Small and odd sizes, so that alignment gaps and padding occur. */
    static final ModelConfig SMALL = new ModelConfig(37, 5, 3, 7, 12, 3, 3, 0.1, 10);
    static final List<ParameterSpec> PARAMS = ModelParameters.of(SMALL);

    /** Every world size 1..8 with every mode; hybrid_shard with every group size that divides the world. */
    static Stream<Arguments> worlds() {
        List<Arguments> out = new ArrayList<>();
        for (int world = 1; world <= 8; world++) {
            for (ParallelMode mode : ParallelMode.values()) {
                if (mode == ParallelMode.HYBRID_SHARD) {
                    for (int g = 1; g <= world; g++) {
                        if (world % g == 0) {
                            out.add(Arguments.of(mode, world, g));
                        }
                    }
                } else {
                    out.add(Arguments.of(mode, world, 0));
                }
            }
        }
        return out.stream();
    }

    @Test
    void theParameterListIsAortasModel() {
        List<ParameterSpec> p = ModelParameters.of(TrainerConfig.defaults().model());
        assertThat(p.getFirst().name()).isEqualTo("embedding.weight");
        assertThat(p.getFirst().shape()).containsExactly(60_000, 192);
        assertThat(p.stream().filter(s -> s.name().equals("dense_projection.weight")).findFirst().orElseThrow()
                .shape()).containsExactly(768, 16 * 128);
        assertThat(p.stream().filter(s -> s.name().equals("encoder.layers.7.self_attn.in_proj_weight")).findFirst()
                .orElseThrow().shape()).containsExactly(3 * 768, 768);
        assertThat(p.getLast().name()).isEqualTo("scorer.3.bias");
        assertThat(p.stream().map(ParameterSpec::name).distinct().count()).isEqualTo(p.size());
        // 12 tensors per encoder layer, 5 in the stem, 6 in the head
        assertThat(p).hasSize(5 + 8 * 12 + 6);
        // per layer: 4D²+4D (attention) + 2DH+H+D (feed-forward) + 4D (norms)
        long d = 768;
        long h = 2048;
        long perLayer = 4 * d * d + 4 * d + 2 * d * h + h + d + 4 * d;
        assertThat(p.stream().filter(s -> s.block().equals(Block.layer(3))).mapToLong(ParameterSpec::numel).sum())
                .isEqualTo(perLayer);
    }

    @ParameterizedTest(name = "{0} world {1} group {2}")
    @MethodSource("worlds")
    void everyElementIsOwnedByExactlyOneRankOfEachShardGroupAndGathersReassembleTheUnit(ParallelMode mode,
                                                                                        int world, int hybrid) {
        ShardingPlan plan = ShardingPlan.of(PARAMS, mode, world, hybrid, 1);
        int group = plan.shardGroupSize();
        assertThat(world % group).isZero();
        for (FlatUnit unit : plan.units()) {
            assertThat(unit.paddedNumel() % ((long) group * FlatUnit.ALIGN_ELEMENTS)).isZero();
            for (int first = 0; first < world; first += group) {
                long[] owners = new long[(int) unit.paddedNumel()];
                for (int rank = first; rank < first + group; rank++) {
                    assertThat(plan.shardGroup(rank)).containsExactly(IntStream.range(first, first + group).toArray());
                    ElementRange r = plan.owned(rank, unit);
                    assertThat(r.start() % FlatUnit.ALIGN_ELEMENTS).isZero();
                    for (long e = r.start(); e < r.end(); e++) {
                        owners[(int) e]++;
                    }
                }
                assertThat(owners).as("owners of %s in the group from rank %d", unit.name(), first)
                        .containsOnly(1);
            }
            plan.gather(unit).ifPresent(g -> {
                assertThat(g.sendBytes() * group).isEqualTo(g.receiveBytes());
                assertThat(g.receiveBytes()).isEqualTo(unit.paddedBytes());
            });
        }
        // the replica groups hold the same shard and, with the shard groups, cover every rank once
        Set<Integer> seen = new HashSet<>();
        for (int rank = 0; rank < world; rank++) {
            int[] replicas = plan.replicaGroup(rank);
            assertThat(replicas).contains(rank).hasSize(world / group);
            for (int other : replicas) {
                assertThat(plan.groupRank(other)).isEqualTo(plan.groupRank(rank));
            }
            seen.add(rank);
        }
        assertThat(seen).hasSize(world);
    }

    @ParameterizedTest(name = "{0} world {1} group {2}")
    @MethodSource("worlds")
    void shardsOfTheFlatLayoutRoundTripToEveryParameter(ParallelMode mode, int world, int hybrid) {
        ShardingPlan plan = ShardingPlan.of(PARAMS, mode, world, hybrid, 1);
        List<String> laidOut = new ArrayList<>();
        for (FlatUnit unit : plan.units()) {
            // Each element of each parameter holds a value naming (parameter, index); padding holds -1.
            long[] flat = new long[(int) unit.paddedNumel()];
            Arrays.fill(flat, -1);
            long previousEnd = 0;
            for (FlatUnit.Slot s : unit.slots()) {
                assertThat(s.offset()).isGreaterThanOrEqualTo(previousEnd);
                assertThat(s.offset() % FlatUnit.ALIGN_ELEMENTS).isZero();
                for (long i = 0; i < s.param().numel(); i++) {
                    flat[(int) (s.offset() + i)] = code(s.param(), i);
                }
                previousEnd = s.range().end();
                laidOut.add(s.param().name());
            }
            assertThat(previousEnd).isLessThanOrEqualTo(unit.paddedNumel());
            // Scatter to the shard group's ranks, then all-gather in group order: every parameter comes back whole.
            int[] group = plan.shardGroup(world - 1);
            long[] gathered = new long[flat.length];
            int at = 0;
            for (int rank : group) {
                ElementRange r = plan.owned(rank, unit);
                long[] shard = Arrays.copyOfRange(flat, (int) r.start(), (int) r.end());
                System.arraycopy(shard, 0, gathered, at, shard.length);
                at += shard.length;
            }
            assertThat(at).isEqualTo(flat.length);
            for (FlatUnit.Slot s : unit.slots()) {
                for (long i = 0; i < s.param().numel(); i++) {
                    assertThat(gathered[(int) (s.offset() + i)]).isEqualTo(code(s.param(), i));
                }
            }
        }
        // every parameter is laid out exactly once, stem and head in the root, each layer's in its own unit
        assertThat(laidOut).containsExactlyInAnyOrderElementsOf(PARAMS.stream().map(ParameterSpec::name).toList());
        assertThat(plan.root().slots()).allMatch(s -> s.param().block().kind() != Block.Kind.LAYER);
        for (int i = 0; i < SMALL.numLayers(); i++) {
            int layer = i;
            assertThat(plan.layer(i).slots()).allMatch(s -> s.param().block().equals(Block.layer(layer)));
        }
    }

    private static long code(ParameterSpec p, long i) {
        return ((long) PARAMS.indexOf(p) << 32) | i;
    }

    @ParameterizedTest(name = "{0} world {1} group {2}")
    @MethodSource("worlds")
    void gradientsAreReducedOverTheRightGroups(ParallelMode mode, int world, int hybrid) {
        ShardingPlan plan = ShardingPlan.of(PARAMS, mode, world, hybrid, 1);
        for (FlatUnit unit : plan.units()) {
            List<Collective> r = plan.reduction(unit);
            List<Collective.Kind> kinds = r.stream().map(Collective::kind).toList();
            if (world == 1 || mode == ParallelMode.DDP) {
                assertThat(r).isEmpty();
                continue;
            }
            switch (mode) {
                case FULL_SHARD, SHARD_GRAD_OP -> {
                    assertThat(kinds).containsExactly(Collective.Kind.REDUCE_SCATTER);
                    assertThat(r.getFirst().sendBytes()).isEqualTo(unit.paddedBytes());
                    assertThat(r.getFirst().receiveBytes()).isEqualTo(unit.shardBytes());
                }
                case NO_SHARD -> assertThat(kinds).containsExactly(Collective.Kind.ALL_REDUCE);
                case HYBRID_SHARD -> {
                    List<Collective.Kind> expected = new ArrayList<>();
                    if (hybrid > 1) {
                        expected.add(Collective.Kind.REDUCE_SCATTER);
                    }
                    if (world > hybrid) {
                        expected.add(Collective.Kind.ALL_REDUCE);
                    }
                    assertThat(kinds).isEqualTo(expected);
                    r.stream().filter(c -> c.kind() == Collective.Kind.ALL_REDUCE).forEach(c -> {
                        assertThat(c.group()).isEqualTo(Collective.Group.REPLICA);
                        assertThat(c.sendBytes()).isEqualTo(unit.shardBytes());
                    });
                }
                default -> throw new AssertionError(mode);
            }
        }
    }

    @Test
    void whatIsGatheredAndWhenFollowsTheStrategy() {
        ShardingPlan full = ShardingPlan.of(PARAMS, ParallelMode.FULL_SHARD, 4, 0, 1);
        assertThat(full.gathersBeforeForward(full.layer(0))).isTrue();
        assertThat(full.regathersForBackward(full.layer(0))).isTrue();
        assertThat(full.regathersForBackward(full.root())).as("the root stays gathered").isFalse();
        ShardingPlan gradOp = ShardingPlan.of(PARAMS, ParallelMode.SHARD_GRAD_OP, 4, 0, 1);
        assertThat(gradOp.gathersBeforeForward(gradOp.layer(0))).isTrue();
        assertThat(gradOp.regathersForBackward(gradOp.layer(0))).isFalse();
        ShardingPlan none = ShardingPlan.of(PARAMS, ParallelMode.NO_SHARD, 4, 0, 1);
        assertThat(none.gather(none.layer(0))).isEmpty();
        assertThat(none.owned(3, none.layer(0)).length()).isEqualTo(none.layer(0).paddedNumel());
        ShardingPlan onePerNode = ShardingPlan.of(PARAMS, ParallelMode.HYBRID_SHARD, 4, 1, 1);
        assertThat(onePerNode.gather(onePerNode.layer(0))).as("a shard group of one has nothing to gather").isEmpty();
    }

    @Test
    void oneRankShardsNothing() {
        TrainerConfig c = TrainerConfig.defaults();
        assertThat(ParallelMode.of(c.distributed(), c.fsdp(), 1)).isEqualTo(ParallelMode.NO_SHARD);
        assertThat(ParallelMode.of(c.distributed(), c.fsdp(), 2)).isEqualTo(ParallelMode.FULL_SHARD);
        TrainerConfig ddp = ConfigLoader.load(null, List.of("distributed.mode=ddp"));
        assertThat(ParallelMode.of(ddp.distributed(), ddp.fsdp(), 1)).isEqualTo(ParallelMode.DDP);
    }

    @Test
    void aWorldThatDoesNotSplitIntoHybridGroupsIsRefused() {
        assertThatThrownBy(() -> ShardingPlan.of(PARAMS, ParallelMode.HYBRID_SHARD, 6, 4, 25))
                .isInstanceOf(ConfigException.class)
                .hasMessage("fsdp.hybrid_shard_gpus_per_node (or LOCAL_WORLD_SIZE) is 4, expected a positive divisor"
                        + " of the world size 6, since hybrid_shard splits the ranks into equal node groups.");
        assertThatThrownBy(() -> ShardingPlan.of(PARAMS, ParallelMode.FULL_SHARD, 0, 0, 25))
                .hasMessage("world size 0 is outside 1..65536.");
    }

    @Test
    void aRunsHybridGroupIsTheConfiguredOneOrElseTheLaunchersRanksPerNode() {
        TrainerConfig fromLauncher = ConfigLoader.load(null, List.of("fsdp.sharding_strategy=hybrid_shard"));
        assertThat(ShardingPlan.forRun(fromLauncher, 8, 4).shardGroupSize()).isEqualTo(4);
        assertThatThrownBy(() -> ShardingPlan.forRun(fromLauncher, 6, 4))
                .hasMessageContaining("is 4, expected a positive divisor of the world size 6");
        TrainerConfig configured = ConfigLoader.load(null,
                List.of("fsdp.sharding_strategy=hybrid_shard", "fsdp.hybrid_shard_gpus_per_node=3"));
        assertThat(ShardingPlan.forRun(configured, 6, 4).shardGroupSize()).isEqualTo(3);
        assertThatThrownBy(() -> ShardingPlan.forRun(configured, 8, 8))
                .hasMessageContaining("fsdp.hybrid_shard_gpus_per_node (or LOCAL_WORLD_SIZE) is 3, expected a"
                        + " positive divisor of the world size 8");
        assertThat(ShardingPlan.forRun(configured, 1, 1).mode()).isEqualTo(ParallelMode.NO_SHARD);
    }

    @Test
    void ddpBucketsHoldEveryGradientOnceInTheOrderBackwardProducesThem() {
        List<ParameterSpec> params = ModelParameters.of(TrainerConfig.defaults().model());
        ShardingPlan plan = ShardingPlan.of(params, ParallelMode.DDP, 8, 0, 25);
        List<ParameterSpec> flattened = plan.buckets().stream().flatMap(b -> b.params().stream()).toList();
        assertThat(flattened).isEqualTo(params.reversed());
        for (GradientBucket b : plan.buckets()) {
            assertThat(b.bytes() <= 25L << 20 || b.params().size() == 1)
                    .as("bucket %d of %d bytes", b.index(), b.bytes()).isTrue();
            assertThat(b.readyAfter()).isEqualTo(b.params().getLast().block());
        }
        // the embedding table (46 MB) is larger than the cap: it is a bucket of its own, the last one
        assertThat(plan.buckets().getLast().params()).extracting(ParameterSpec::name)
                .containsExactly("embedding.weight");
        assertThat(plan.buckets().getFirst().params().getFirst().name()).isEqualTo("scorer.3.bias");
    }
}
