package dev.aorta.trainer.step;

import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.ModelParameters;
import dev.aorta.trainer.plan.ParallelMode;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StepSchedule;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The multi-rank step against the host stand-in for NCCL ({@link HostWorld}) with {@link ToyModel}'s passes: world
 * sizes 1 to 4, every mode and hybrid group size, every prefetch, limit, stream and accumulation setting. Each rank
 * runs {@link StepExecutor} on its own thread for three steps, its work running asynchronously on four stream
 * threads with random delays ({@link HostStreams}), ordered across streams only by the executor's events; every
 * rank must then own exactly the shard of the unsharded reference's parameters and reduced gradient that the plan
 * assigns it, report the reference's global norm every step, have issued each stream's collectives in the
 * schedule's order, and never have computed from a unit before its gather's event (or reduced gradients before
 * their backward's). A missing wait lets a stream run ahead and compute from data that is not there yet, or has
 * been freed: the values then differ (most runs; the delays are random).
 */
class StepExecutorTest {
    static final int STEPS = 3;
    static final double CLIP = 0.5;

    record Setup(String mode, int world, int hybridGroup, boolean forwardPrefetch, String backwardPrefetch,
                 boolean limit, String streams, int accumulation) {
        TrainerConfig config() {
            List<String> o = new ArrayList<>(List.of("model.num_layers=3", "model.model_dim=8", "model.num_heads=2",
                    "model.mlp_hidden_dim=6", "model.vocab_size=11", "dataset.vocab_size=11",
                    "model.embedding_dim=4", "model.dense_dim=3", "dataset.dense_dim=3",
                    "model.num_dense_features=2", "dataset.num_dense_features=2",
                    "fsdp.forward_prefetch=" + forwardPrefetch, "fsdp.backward_prefetch=" + backwardPrefetch,
                    "fsdp.limit_all_gathers=" + limit, "distributed.collective_streams=" + streams,
                    "training.batch_size=4", "training.gradient_accumulation=" + accumulation,
                    "training.grad_clip_norm=" + CLIP));
            o.add(mode.equals("ddp") ? "distributed.mode=ddp" : "fsdp.sharding_strategy=" + mode);
            return ConfigLoader.load(null, o);
        }

        ShardingPlan plan() {
            TrainerConfig c = config();
            return ShardingPlan.of(ModelParameters.of(c.model()), ParallelMode.of(c.distributed(), c.fsdp(), world),
                    world, hybridGroup, c.distributed().bucketCapMb());
        }
    }

    static Stream<Arguments> setups() {
        List<Arguments> out = new ArrayList<>();
        for (int world = 1; world <= 4; world++) {
            for (String mode : List.of("full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "ddp")) {
                for (int group = 1; group <= world; group++) {
                    if (world % group != 0 || (!mode.equals("hybrid_shard") && group != world)) {
                        continue;
                    }
                    for (boolean fp : new boolean[] {true, false}) {
                        for (String bp : List.of("BACKWARD_PRE", "BACKWARD_POST", "none")) {
                            for (boolean limit : new boolean[] {true, false}) {
                                for (String streams : List.of("dedicated", "compute")) {
                                    for (int acc : new int[] {1, 2}) {
                                        out.add(Arguments.of(new Setup(mode, world, group, fp, bp, limit, streams,
                                                acc)));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out.stream();
    }

    private static List<HostRank> run(Setup setup) throws Exception {
        TrainerConfig config = setup.config();
        ShardingPlan plan = setup.plan();
        StepSchedule schedule = StepSchedule.of(plan, config);
        HostWorld world = new HostWorld();
        List<HostRank> ranks = new ArrayList<>();
        for (int r = 0; r < setup.world(); r++) {
            ranks.add(new HostRank(plan, r, setup.accumulation(), CLIP, world));
        }
        ExecutorService pool = Executors.newFixedThreadPool(setup.world());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (HostRank rank : ranks) {
                done.add(pool.submit(() -> {
                    try (rank) {
                        StepExecutor executor = new StepExecutor(schedule, rank.layout(), rank, rank);
                        for (int s = 0; s < STEPS; s++) {
                            executor.issueStep();
                            rank.awaitStepEnd(); // as the trainer, which issues a step once the last one ended
                        }
                    } catch (RuntimeException | AssertionError e) {
                        world.abort();
                        throw e;
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new AssertionError(setup + ": a rank failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return ranks;
    }

    @ParameterizedTest
    @MethodSource("setups")
    void everyRankEndsWithItsShardOfTheUnshardedRunInTheScheduleOrder(Setup setup) throws Exception {
        List<HostRank> ranks = run(setup);
        requireScheduleOrder(setup, ranks);
        ShardingPlan plan = setup.plan();
        ToyModel.Result expected = ToyModel.reference(plan, setup.world(), setup.accumulation(), STEPS, CLIP);
        for (HostRank rank : ranks) {
            assertThat(rank.violations).as(setup + " rank " + rank.layout().rank()).isEmpty();
            assertThat(rank.norms).hasSize(STEPS);
            for (int s = 0; s < STEPS; s++) {
                assertThat(rank.norms.get(s)).as(setup + " norm of step " + s)
                        .isCloseTo(expected.norms()[s], within(1e-5 * expected.norms()[s]));
            }
            for (FlatUnit unit : plan.units()) {
                int u = rank.layout().unitIndex(unit);
                for (RankLayout.OwnedPiece piece : rank.layout().ownedPieces(unit)) {
                    float[] params = rank.read(piece.params());
                    float[] grads = rank.read(piece.grads());
                    long at = rank.layout().ownedRange(unit).start() + piece.params().offset()
                            - rank.layout().ownedParams(unit).offset();
                    for (int i = 0; i < params.length; i++) {
                        assertThat((double) grads[i]).as(setup + " rank " + rank.layout().rank() + " gradient of "
                                        + piece.param().name() + "[" + (piece.paramOffset() + i) + "]")
                                .isCloseTo(expected.lastGradients()[u][(int) at + i], within(2e-5));
                        assertThat(params[i]).as(setup + " rank " + rank.layout().rank() + " "
                                        + piece.param().name() + "[" + (piece.paramOffset() + i) + "]")
                                .isCloseTo(expected.parameters()[u][(int) at + i], within(2e-5f));
                    }
                }
            }
        }
    }


    /** Each stream's collectives, on every rank, are the schedule's, in its order, step after step. */
    private static void requireScheduleOrder(Setup setup, List<HostRank> ranks) {
        StepSchedule schedule = StepSchedule.of(setup.plan(), setup.config());
        for (StreamRole stream : StreamRole.values()) {
            List<String> once = schedule.on(stream).stream().filter(ScheduledOp::isCollective)
                    .map(o -> o.kind() + " " + o.target()).toList();
            List<String> expected = new ArrayList<>();
            for (int s = 0; s < STEPS; s++) {
                expected.addAll(once);
            }
            for (HostRank rank : ranks) {
                assertThat(rank.collectivesOn.get(stream)).as(setup + " rank " + rank.layout().rank() + " on "
                        + stream.label()).isEqualTo(expected);
            }
        }
    }
}
