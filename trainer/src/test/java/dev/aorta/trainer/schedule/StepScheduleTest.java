package dev.aorta.trainer.schedule;

import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.ModelParameters;
import dev.aorta.trainer.plan.ParallelMode;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp.Phase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class StepScheduleTest {
    static final int LAYERS = 4;

    record Setup(String mode, int world, boolean forwardPrefetch, String backwardPrefetch, boolean limit,
                 String streams, int accumulation) {
        TrainerConfig config() {
            List<String> o = new ArrayList<>(List.of("model.num_layers=" + LAYERS, "model.model_dim=16",
                    "model.num_heads=2", "model.mlp_hidden_dim=24", "model.vocab_size=100", "dataset.vocab_size=100",
                    "fsdp.forward_prefetch=" + forwardPrefetch, "fsdp.backward_prefetch=" + backwardPrefetch,
                    "fsdp.limit_all_gathers=" + limit, "distributed.collective_streams=" + streams,
                    "training.batch_size=6", "training.gradient_accumulation=" + accumulation,
                    "distributed.bucket_cap_mb=1"));
            if (mode.equals("ddp")) {
                o.add("distributed.mode=ddp");
            } else {
                o.add("fsdp.sharding_strategy=" + mode);
            }
            return ConfigLoader.load(null, o);
        }

        ShardingPlan plan() {
            TrainerConfig c = config();
            return ShardingPlan.of(ModelParameters.of(c.model()), ParallelMode.of(c.distributed(), c.fsdp(), world),
                    world, 2, c.distributed().bucketCapMb());
        }

        StepSchedule schedule() {
            return StepSchedule.of(plan(), config());
        }
    }

    static Stream<Arguments> setups() {
        List<Arguments> out = new ArrayList<>();
        for (String mode : List.of("full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "ddp")) {
            for (int world : new int[] {1, 2, 4}) {
                for (boolean fp : new boolean[] {true, false}) {
                    for (String bp : List.of("BACKWARD_PRE", "BACKWARD_POST", "none")) {
                        for (boolean limit : new boolean[] {true, false}) {
                            for (String streams : List.of("dedicated", "compute")) {
                                for (int acc : new int[] {1, 3}) {
                                    out.add(Arguments.of(new Setup(mode, world, fp, bp, limit, streams, acc)));
                                }
                            }
                        }
                    }
                }
            }
        }
        return out.stream();
    }

    private static ScheduledOp find(StepSchedule s, OpKind kind, String target, int mb, Phase phase) {
        return s.ops().stream().filter(o -> o.kind() == kind && o.target().equals(target) && o.microBatch() == mb
                && o.phase() == phase).findFirst().orElseThrow(() -> new AssertionError(
                "no " + kind + " " + target + " mb" + mb + " " + phase + " in " + s.ops()));
    }

    private static List<ScheduledOp> all(StepSchedule s, Predicate<ScheduledOp> p) {
        return s.ops().stream().filter(p).toList();
    }

    private static String unitOf(String block) {
        return block.startsWith("layers.") ? block : "root";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void everyOperationRunsOnlyAfterItsInputsAreReady(Setup setup) {
        StepSchedule s = setup.schedule();
        ShardingPlan plan = setup.plan();
        HappensBefore hb = new HappensBefore(s);
        ScheduledOp begin = s.ops().getFirst();
        ScheduledOp end = s.ops().getLast();
        ScheduledOp optimizer = find(s, OpKind.OPTIMIZER, "", 0, Phase.STEP);
        assertThat(begin.kind()).isEqualTo(OpKind.STEP_BEGIN);
        assertThat(end.kind()).isEqualTo(OpKind.STEP_END);
        for (ScheduledOp op : s.ops()) {
            if (op != begin) {
                assertThat(hb.ordered(begin, op)).as("%s after the step begins", op).isTrue();
            }
            if (op != end) {
                assertThat(hb.ordered(op, end)).as("%s before the step ends", op).isTrue();
            }
            // The optimizer writes the shards every gather reads and reads every reduced gradient: it must come
            // after all of them (the seed has no aux.wait_stream(compute) before its optimizer).
            if (op != end && op != optimizer) {
                assertThat(hb.ordered(op, optimizer)).as("%s before the optimizer", op).isTrue();
            }
        }
        for (ScheduledOp op : all(s, o -> o.kind() == OpKind.FORWARD || o.kind() == OpKind.BACKWARD)) {
            String unit = unitOf(op.target());
            // the latest gather of the op's unit issued before it must have completed, and not been freed since
            ScheduledOp gather = null;
            for (ScheduledOp o : s.ops().subList(0, op.index())) {
                if (o.kind() == OpKind.ALL_GATHER && o.target().equals(unit)) {
                    gather = o;
                } else if (o.kind() == OpKind.FREE && o.target().equals(unit)) {
                    gather = null;
                }
            }
            boolean sharded = plan.gathersBeforeForward(plan.root());
            assertThat(gather != null).as("%s has its unit's parameters gathered", op).isEqualTo(sharded);
            if (gather != null) {
                assertThat(hb.ordered(gather, op)).as("%s after %s", op, gather).isTrue();
            }
            // and the next gather of its unit overwrites that buffer: only once the pass has read it
            s.ops().subList(op.index() + 1, s.ops().size()).stream()
                    .filter(o -> o.kind() == OpKind.ALL_GATHER && o.target().equals(unit)).findFirst()
                    .ifPresent(next -> assertThat(hb.ordered(op, next)).as("%s before %s", op, next).isTrue());
        }
        for (int m = 0; m < setup.accumulation(); m++) {
            assertThat(hb.ordered(find(s, OpKind.H2D, "batch", m, Phase.STEP),
                    find(s, OpKind.FORWARD, "stem", m, Phase.FORWARD))).isTrue();
        }
        int last = setup.accumulation() - 1;
        for (ScheduledOp r : all(s, o -> (o.kind() == OpKind.REDUCE_SCATTER || o.kind() == OpKind.ALL_REDUCE)
                && !o.target().equals("grad_norm"))) {
            assertThat(r.microBatch()).as("no_sync: reduce on the last micro-batch only").isEqualTo(last);
            Set<String> blocks = r.target().startsWith("bucket.")
                    ? Set.copyOf(plan.buckets().get(Integer.parseInt(r.target().substring(7))).params().stream()
                            .map(p -> p.block().toString()).toList())
                    : r.target().equals("root") ? Set.of("stem", "head") : Set.of(r.target());
            for (String block : blocks) {
                assertThat(hb.ordered(find(s, OpKind.BACKWARD, block, last, Phase.BACKWARD), r))
                        .as("%s after the backward of %s", r, block).isTrue();
            }
            assertThat(hb.ordered(r, find(s, OpKind.GRAD_NORM, "grad_norm", 0, Phase.STEP))).isTrue();
        }
        // hybrid: the cross-group all-reduce reduces what the reduce-scatter produced
        for (ScheduledOp ar : all(s, o -> o.kind() == OpKind.ALL_REDUCE && setup.mode().equals("hybrid_shard")
                && !o.target().equals("grad_norm"))) {
            all(s, o -> o.kind() == OpKind.REDUCE_SCATTER && o.target().equals(ar.target()))
                    .forEach(rs -> assertThat(hb.ordered(rs, ar)).as("%s after %s", ar, rs).isTrue());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void collectivesRunWhereConfiguredAndOnlyWhenNeeded(Setup setup) {
        StepSchedule s = setup.schedule();
        ShardingPlan plan = setup.plan();
        for (ScheduledOp op : all(s, ScheduledOp::isCollective)) {
            StreamRole dedicated = switch (op.kind()) {
                case ALL_GATHER -> StreamRole.AUX;
                case REDUCE_SCATTER -> StreamRole.REDUCESCATTER;
                default -> StreamRole.ALLREDUCE;
            };
            assertThat(op.stream()).as("%s", op)
                    .isEqualTo(setup.streams().equals("compute") ? StreamRole.COMPUTE : dedicated);
        }
        if (setup.world() == 1) {
            assertThat(all(s, ScheduledOp::isCollective)).as("one rank has nothing to communicate").isEmpty();
        }
        // every unit (fsdp) or bucket (ddp) is reduced exactly once
        long reduced = all(s, o -> (o.kind() == OpKind.REDUCE_SCATTER || o.kind() == OpKind.ALL_REDUCE)
                && !o.target().equals("grad_norm")).stream().map(ScheduledOp::target).distinct().count();
        long expected = setup.world() == 1 ? 0
                : plan.mode() == ParallelMode.DDP ? plan.buckets().size() : plan.units().size();
        assertThat(reduced).isEqualTo(expected);
        // the compute stream runs forward in model order and backward in reverse, per micro-batch
        List<String> compute = s.on(StreamRole.COMPUTE).stream()
                .filter(o -> o.kind() == OpKind.FORWARD || o.kind() == OpKind.BACKWARD)
                .map(o -> o.kind().name().charAt(0) + o.target()).toList();
        List<String> pass = new ArrayList<>(List.of("Fstem"));
        for (int i = 0; i < LAYERS; i++) {
            pass.add("Flayers." + i);
        }
        pass.addAll(List.of("Fhead", "Bhead"));
        for (int i = LAYERS - 1; i >= 0; i--) {
            pass.add("Blayers." + i);
        }
        pass.add("Bstem");
        List<String> step = new ArrayList<>();
        for (int m = 0; m < setup.accumulation(); m++) {
            step.addAll(pass);
        }
        assertThat(compute).isEqualTo(step);
    }

    private static StepSchedule fullShard(boolean forwardPrefetch, String backwardPrefetch, boolean limit) {
        return new Setup("full_shard", 4, forwardPrefetch, backwardPrefetch, limit, "dedicated", 1).schedule();
    }

    private static int at(StepSchedule s, OpKind kind, String target, Phase phase) {
        return find(s, kind, target, 0, phase).index();
    }

    @Test
    void forwardPrefetchIssuesTheNextLayersGatherBeforeThisLayersForward() {
        StepSchedule on = fullShard(true, "BACKWARD_PRE", true);
        StepSchedule off = fullShard(false, "BACKWARD_PRE", true);
        assertThat(at(on, OpKind.ALL_GATHER, "layers.0", Phase.FORWARD))
                .isLessThan(at(on, OpKind.FORWARD, "stem", Phase.FORWARD));
        for (int i = 0; i + 1 < LAYERS; i++) {
            String next = "layers." + (i + 1);
            assertThat(at(on, OpKind.ALL_GATHER, next, Phase.FORWARD))
                    .isLessThan(at(on, OpKind.FORWARD, "layers." + i, Phase.FORWARD));
            assertThat(at(off, OpKind.ALL_GATHER, next, Phase.FORWARD))
                    .isGreaterThan(at(off, OpKind.FORWARD, "layers." + i, Phase.FORWARD))
                    .isLessThan(at(off, OpKind.FORWARD, next, Phase.FORWARD));
        }
    }

    @Test
    void backwardPrefetchPlacesTheNextLayersGatherBeforeOrAfterThisLayersBackward() {
        StepSchedule pre = fullShard(true, "BACKWARD_PRE", false);
        StepSchedule post = fullShard(true, "BACKWARD_POST", false);
        StepSchedule none = fullShard(true, "none", false);
        assertThat(at(pre, OpKind.ALL_GATHER, "layers." + (LAYERS - 1), Phase.BACKWARD))
                .isLessThan(at(pre, OpKind.BACKWARD, "head", Phase.BACKWARD));
        for (int i = LAYERS - 1; i > 0; i--) {
            String layer = "layers." + i;
            String next = "layers." + (i - 1);
            assertThat(at(pre, OpKind.ALL_GATHER, next, Phase.BACKWARD))
                    .isLessThan(at(pre, OpKind.BACKWARD, layer, Phase.BACKWARD));
            assertThat(at(post, OpKind.ALL_GATHER, next, Phase.BACKWARD))
                    .isGreaterThan(at(post, OpKind.BACKWARD, layer, Phase.BACKWARD))
                    .isLessThan(at(post, OpKind.REDUCE_SCATTER, layer, Phase.BACKWARD));
            assertThat(at(none, OpKind.ALL_GATHER, next, Phase.BACKWARD))
                    .isGreaterThan(at(none, OpKind.REDUCE_SCATTER, layer, Phase.BACKWARD));
        }
    }

    /** For each layer gather, the earlier layer gathers not yet freed when it may start. */
    private static int maxInFlight(StepSchedule s) {
        HappensBefore hb = new HappensBefore(s);
        List<ScheduledOp> gathers = all(s, o -> o.kind() == OpKind.ALL_GATHER && o.target().startsWith("layers."));
        int max = 0;
        for (int j = 0; j < gathers.size(); j++) {
            ScheduledOp g = gathers.get(j);
            int inFlight = 1;
            for (ScheduledOp earlier : gathers.subList(0, j)) {
                ScheduledOp free = s.ops().stream().filter(o -> o.kind() == OpKind.FREE
                        && o.target().equals(earlier.target()) && o.index() > earlier.index()).findFirst()
                        .orElseThrow();
                if (!hb.ordered(free, g)) {
                    inFlight++;
                }
            }
            max = Math.max(max, inFlight);
        }
        return max;
    }

    @Test
    void limitAllGathersKeepsAtMostTwoLayersGatheredForEveryPrefetchSetting() {
        for (boolean fp : new boolean[] {true, false}) {
            for (String bp : List.of("BACKWARD_PRE", "BACKWARD_POST", "none")) {
                assertThat(maxInFlight(fullShard(fp, bp, true))).as("limited, %s %s", fp, bp).isLessThanOrEqualTo(2);
                assertThat(maxInFlight(new Setup("hybrid_shard", 4, fp, bp, true, "dedicated", 3).schedule()))
                        .isLessThanOrEqualTo(2);
                // without the limit, gathers on their own stream may run ahead of the forward
                assertThat(maxInFlight(fullShard(fp, bp, false))).as("unlimited, %s %s", fp, bp).isGreaterThan(2);
            }
        }
    }

    @Test
    void shardGradOpGathersOncePerMicroBatchAndFreesAfterBackward() {
        StepSchedule s = new Setup("shard_grad_op", 4, true, "BACKWARD_PRE", true, "dedicated", 1).schedule();
        assertThat(all(s, o -> o.kind() == OpKind.ALL_GATHER && o.phase() == Phase.BACKWARD)).isEmpty();
        for (int i = 0; i < LAYERS; i++) {
            assertThat(at(s, OpKind.FREE, "layers." + i, Phase.BACKWARD))
                    .isGreaterThan(at(s, OpKind.BACKWARD, "layers." + i, Phase.BACKWARD));
        }
    }

    @Test
    void gradientAccumulationGathersTheRootOnceAndReducesOnce() {
        StepSchedule s = new Setup("full_shard", 4, true, "BACKWARD_PRE", true, "dedicated", 3).schedule();
        assertThat(all(s, o -> o.kind() == OpKind.H2D)).hasSize(3);
        assertThat(all(s, o -> o.kind() == OpKind.ALL_GATHER && o.target().equals("root"))).hasSize(1);
        assertThat(all(s, o -> o.kind() == OpKind.ALL_GATHER && o.target().equals("layers.0"))).hasSize(6);
        assertThat(all(s, o -> o.kind() == OpKind.REDUCE_SCATTER)).hasSize(LAYERS + 1);
        assertThat(all(s, o -> o.kind() == OpKind.OPTIMIZER)).hasSize(1);
    }

    @Test
    void ddpReducesBucketsAsTheirGradientsBecomeReady() {
        // the default model (8 layers of 7 M parameters) in 25 MB buckets
        TrainerConfig c = ConfigLoader.load(null, List.of("distributed.mode=ddp"));
        ShardingPlan plan = ShardingPlan.of(ModelParameters.of(c.model()), ParallelMode.DDP, 4, 0, 25);
        StepSchedule s = StepSchedule.of(plan, c);
        assertThat(all(s, o -> o.kind() == OpKind.ALL_GATHER)).isEmpty();
        assertThat(all(s, o -> o.kind() == OpKind.ALL_REDUCE)).hasSize(plan.buckets().size());
        assertThat(all(s, o -> o.kind() == OpKind.ALL_REDUCE).getFirst().index())
                .as("the first bucket's all-reduce is issued while layers still have backward to run")
                .isLessThan(at(s, OpKind.BACKWARD, "layers.0", Phase.BACKWARD));
    }
}
