package dev.aorta.model.ops;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Launches of one cached-attention step (the count continuous_batch, rag_pipeline and speculative_decode declare):
 * in-projection with its bias, q/k/v layout with the cache append, scores, softmax, weighted values, and the
 * out-projection with its bias and the residual; the heads' merge is a launch of its own only where the weighted
 * values cannot be written merged (several sequences of several positions).
 */
class CachedAttentionLaunchesTest {
    @Test
    void oneSequenceOrOnePositionPerSequenceNeedsSixLaunches() {
        assertThat(CachedSelfAttention.launchesPerForward(1, 512)).isEqualTo(6); // a prefill of one request
        assertThat(CachedSelfAttention.launchesPerForward(8, 1)).isEqualTo(6); // a decode step of 8 sequences
        assertThat(CachedSelfAttention.launchesPerForward(1, 1)).isEqualTo(6);
    }

    @Test
    void severalSequencesOfSeveralPositionsMergeTheirHeadsInAPassOfTheirOwn() {
        assertThat(CachedSelfAttention.launchesPerForward(2, 256)).isEqualTo(7); // rag_pipeline's generator
    }
}
