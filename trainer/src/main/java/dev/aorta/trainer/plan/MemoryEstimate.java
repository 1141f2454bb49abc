package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The device memory one rank needs at the peak of a step, by part: a lower bound (it leaves out the CUDA context,
 * NCCL's buffers, cuBLAS workspaces and allocator fragmentation), so a configuration it refuses cannot run.
 * <ul>
 *   <li>parameters, gradients, optimizer: the rank's shard of each unit in fp32; AdamW keeps two moments.</li>
 *   <li>gathered: unsharded units alive at once: with limit_all_gathers two layers (the one computing and the one
 *       prefetched), without it every layer (the host may run ahead by the whole forward); shard_grad_op keeps every
 *       layer from forward to backward; the root stays gathered for the whole step. Each gathered unit also has an
 *       unsharded gradient while it is reduced. With mixed precision a 2-byte compute copy of each gathered unit.</li>
 *   <li>accumulation: with gradient_accumulation &gt; 1 gradients are reduced on the last micro-batch only
 *       (no_sync), so each rank keeps an unsharded fp32 gradient of every unit meanwhile.</li>
 *   <li>activations: what one micro-batch's forward keeps for backward, in fp32 (see {@link #activationBytes}).</li>
 * </ul>
 */
public record MemoryEstimate(long parameters, long gradients, long optimizerState, long gathered, long accumulation,
                             long activations) {

    public long total() {
        return parameters + gradients + optimizerState + gathered + accumulation + activations;
    }

    /** The parts by name, in the order the refusal message lists them. */
    public Map<String, Long> parts() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("parameters", parameters);
        m.put("gradients", gradients);
        m.put("optimizer state", optimizerState);
        m.put("gathered layers", gathered);
        m.put("accumulated gradients", accumulation);
        m.put("activations", activations);
        return m;
    }

    public static MemoryEstimate of(ShardingPlan plan, TrainerConfig config) {
        long owned = plan.ownedBytes();
        long gathered = 0;
        if (plan.gathersBeforeForward(plan.root())) {
            int live = plan.mode() == ParallelMode.SHARD_GRAD_OP || !config.fsdp().limitAllGathers()
                    ? plan.layers().size() : Math.min(2, plan.layers().size());
            long largestLayer = plan.layers().stream().mapToLong(FlatUnit::paddedBytes).max().orElse(0);
            long unsharded = plan.root().paddedBytes() + live * largestLayer;
            long computeCopy = config.training().mixedPrecision() == MixedPrecision.NONE ? 0 : unsharded / 2;
            long unshardedGrads = plan.root().paddedBytes() + Math.min(2, plan.layers().size()) * largestLayer;
            gathered = unsharded + computeCopy + unshardedGrads;
        }
        long accumulation = config.training().gradientAccumulation() > 1 && plan.mode().sharded()
                ? plan.units().stream().mapToLong(FlatUnit::paddedBytes).sum() : 0;
        return new MemoryEstimate(owned, owned, 2 * owned, gathered, accumulation,
                activationBytes(config, config.training().microBatchSize()));
    }

    /**
     * fp32 bytes that one micro-batch's forward keeps for backward, with B·T = batch · sequence_length positions,
     * model width D, feed-forward width H: the stem keeps the dense input (F·Dd), the pooled embedding (E) and both
     * projections (2D) per position; each encoder layer its input, q, k, v, the attention output and its projection,
     * norm1's output, linear2's output and norm2's output (9D), the feed-forward's pre- and post-GELU (2H), and
     * per-head softmax statistics; the head the final norm (D), the scorer's hidden pre- and post-GELU (2H) and the
     * score. A bound to compare with the model module's allocations once the executor runs.
     */
    static long activationBytes(TrainerConfig config, int microBatch) {
        var m = config.model();
        long positions = (long) microBatch * config.dataset().sequenceLength();
        long stem = (long) m.numDenseFeatures() * m.denseDim() + m.embeddingDim() + 2L * m.modelDim();
        long layer = 9L * m.modelDim() + 2L * m.mlpHiddenDim() + 2L * m.numHeads();
        long head = m.modelDim() + 2L * m.mlpHiddenDim() + 1;
        return positions * (stem + m.numLayers() * layer + head) * Float.BYTES;
    }
}
