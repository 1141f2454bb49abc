package dev.aorta.trainer.run;

import dev.aorta.model.AllocationMeter;
import dev.aorta.model.AllocationMeter.Request;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.ranking.RankingModel;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;
import dev.aorta.trainer.plan.MemoryEstimate;
import dev.aorta.trainer.plan.ShardingPlan;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trainer's {@link MemoryEstimate} against what the model's own allocation code asks for: the single-GPU
 * trainer's RankingModel, its Activations and AdamW built in a meta {@link OpContext} that counts every request,
 * at the default and the stress shape, in bf16 and fp32.
 */
class MemoryEstimateAllocationTest {
    /**
     * Activations requests the estimate leaves out on purpose (its doc: shared scratch, backward gradients, the
     * head's intermediates): all layers share one of each, so they do not grow with the number of layers.
     */
    private static final Set<String> SHARED_SCRATCH = Set.of("forward or backward buffers",
            "merged heads bf16 copy", "d scores", "d pooled embedding", "d encoder activations (even)",
            "d encoder activations (odd)", "final norm mean", "final norm rstd", "final norm output bf16 copy",
            "scorer hidden bf16 copy", "loss");

    private record Counted(long parameterState, long activations, long sharedScratch, List<Request> all) {
    }

    private static Counted count(TrainerConfig cfg) {
        AllocationMeter meter = new AllocationMeter();
        OpContext ctx = OpContext.meta(meter);
        ctx.autocast(cfg.training().mixedPrecision() == MixedPrecision.NONE ? null : DType.BF16);
        RankingModel model = new RankingModel(ctx, SingleGpuTrainer.rankingConfig(cfg), 1);
        int beforeActivations = meter.mark();
        model.activations();
        List<Request> activations = meter.since(beforeActivations);
        int beforeOptimizer = meter.mark();
        new AdamW(ctx, model.parameters(), 0.9, 0.999, 1e-8, 0.01, null);
        long values = model.parameters().stream().mapToLong(p -> p.value().bytes() + p.grad().bytes()).sum();
        long moments = meter.since(beforeOptimizer).stream().filter(r -> r.what().endsWith(" moment"))
                .mapToLong(Request::bytes).sum();
        long shared = activations.stream().filter(r -> SHARED_SCRATCH.contains(r.what())).mapToLong(Request::bytes)
                .sum();
        return new Counted(values + moments, AllocationMeter.total(activations), shared, meter.requests());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"default.yaml, bf16", "default.yaml, none", "mi350_overlap_stress.yaml, bf16",
            "mi350_overlap_stress.yaml, none"})
    void theEstimateIsWhatTheModelAllocatesLessTheSharedScratchPlusTheInputBatch(String file, String precision) {
        TrainerConfig cfg = ConfigLoader.load(Path.of("..", "config", file),
                List.of("training.mixed_precision=" + precision));
        MemoryEstimate estimate = MemoryEstimate.of(ShardingPlan.forRun(cfg, 1, 1), cfg);
        Counted counted = count(cfg);
        String allocated = " (allocated by owner: " + AllocationMeter.byOwner(counted.all()) + ")";

        long state = estimate.parameters() + estimate.gradients() + estimate.optimizerState();
        // the plan pads each flat unit to its alignment; the layers allocate parameters unpadded
        assertThat(state).as("parameters, gradients, AdamW moments" + allocated).isBetween(counted.parameterState(),
                counted.parameterState() + 4 * 4096L * ShardingPlan.forRun(cfg, 1, 1).units().size());

        // the estimate counts the dense input batch the trainer uploads (not an activation the model allocates)
        var m = cfg.model();
        long denseInput = 4L * cfg.training().microBatchSize() * cfg.dataset().sequenceLength()
                * m.numDenseFeatures() * m.denseDim();
        assertThat(estimate.activations()).as("activations kept for backward" + allocated).isEqualTo(
                counted.activations() - counted.sharedScratch() + denseInput);
    }
}
