package dev.aorta.trainer.plan;

import dev.aorta.model.ops.Attention;
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
 *   <li>activations: what one micro-batch's forward keeps for backward (see {@link #activationBytes}).</li>
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
     * Bytes that one micro-batch's forward keeps for backward (the model module's RankingModel.Activations), with
     * B·T = batch · sequence_length positions, model width D, feed-forward width H, A heads: the stem keeps the dense
     * input (F·Dd), the pooled embedding (E) and, fp32, the encoder activations that no layer counts as its input:
     * under autocast the two buffers all layers' inputs and outputs alternate in (2D), without autocast the last
     * layer's output (D; each layer keeps its own input); the head the
     * scorer's pre-activation (H, in the autocast dtype or fp32) and the score. Each encoder layer keeps, fp32, the
     * attention output (D), both residual sums that its norms normalise again (2D), the attention's logsumexp (A)
     * and the norms' mean and 1/std (4); q, k, v (3D) and linear1's pre-activation (H) in the autocast dtype (q, k, v
     * only for heads the tensor-core attention takes, of at most 64) or fp32; and what its GEMMs read again in
     * backward: without autocast its input, the merged heads, norm1's output (3D) and the GELU output (H) in fp32;
     * under autocast only the 16-bit copies of its input, norm1's output (2D) and the GELU output (H) (the fp32
     * tensors are forward-only scratch one set of which all layers share, and so is the merged heads' copy, written
     * again in backward from the attention output). That shared scratch (forward-only intermediates, backward
     * gradients, the head's hidden layer and final norm output with their gradients, attention scores, the 16-bit
     * merged heads and dy) is left out.
     */
    static long activationBytes(TrainerConfig config, int microBatch) {
        var m = config.model();
        long positions = (long) microBatch * config.dataset().sequenceLength();
        long d = m.modelDim();
        long h = m.mlpHiddenDim();
        boolean autocast = config.training().mixedPrecision() != MixedPrecision.NONE;
        long low = autocast ? 2 : 4;
        long qkv = (autocast && d / m.numHeads() <= Attention.TENSOR_CORE_MAX_HEAD_DIM ? 2 : 4) * 3 * d;
        long stem = 4 * ((long) m.numDenseFeatures() * m.denseDim() + m.embeddingDim() + (autocast ? 2 : 1) * d);
        long readAgain = autocast ? 2 * (2 * d + h) : 4 * (3 * d + h);
        long layer = 4 * (3 * d + m.numHeads() + 4) + qkv + low * h + readAgain;
        long head = low * h + 4;
        return positions * (stem + m.numLayers() * layer + head);
    }
}
