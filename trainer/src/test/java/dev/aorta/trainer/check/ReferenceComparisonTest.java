package dev.aorta.trainer.check;

import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ReferenceComparisonTest {
    private static HostTensor t(float... v) {
        return HostTensor.ofFloats(DType.FP32, new int[] {v.length}, v);
    }

    private static ReferenceComparison.Outcome compare(List<Double> ours, List<Double> torch,
                                                       Map<String, HostTensor> mine, Map<String, HostTensor> ref,
                                                       Map<String, HostTensor> start) {
        return ReferenceComparison.compare(ours, torch, mine, ref, start, 1e-4, 1e-3,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void passesWhenEveryStepAndTensorIsWithinItsBarAndNamesTheWorst() {
        var o = compare(List.of(0.7, 0.6, 0.5), List.of(0.7, 0.6 * (1 + 5e-5), 0.5),
                Map.of("a", t(1, 2), "b", t(3, 4)), Map.of("a", t(1, 2), "b", t(3, 4.001f)), null);
        assertThat(o.passed()).isTrue();
        assertThat(o.worstLossStep()).isEqualTo(1);
        assertThat(o.worstLossError()).isCloseTo(5e-5, within(1e-7));
        assertThat(o.worstWeight()).isEqualTo("b");
        assertThat(o.worstWeightError()).isCloseTo(0.001 / 5, within(1e-6));
    }

    @Test
    void failsOnOneStepsLossOrOneTensor() {
        assertThat(compare(List.of(0.7, 0.6), List.of(0.7, 0.61), Map.of("a", t(1)), Map.of("a", t(1)), null)
                .passed()).isFalse();
        assertThat(compare(List.of(0.7), List.of(0.7), Map.of("a", t(1, 1)), Map.of("a", t(1, 1.01f)), null)
                .passed()).isFalse();
        // a NaN loss is never within the bar
        assertThat(compare(List.of(Double.NaN), List.of(0.7), Map.of("a", t(1)), Map.of("a", t(1)), null)
                .passed()).isFalse();
    }

    @Test
    void theUpdatesErrorIsMeasuredFromTheStartingWeights() {
        // both moved from 1 to about 1.01: the weights agree to 1e-4, the updates only to 1e-2
        var o = compare(List.of(0.7), List.of(0.7), Map.of("a", t(1.0101f)), Map.of("a", t(1.01f)),
                Map.of("a", t(1f)));
        assertThat(o.worstWeightError()).isLessThan(1e-3);
        assertThat(o.worstUpdateError()).isCloseTo(0.01, within(1e-3));
    }

    @Test
    void theKeyThirdOfAnAttentionBiasIsShownButNotJudgedAndTheOtherThirdsAre() {
        String bias = "encoder.layers.0.self_attn.in_proj_bias";
        // [q q | k k | v v]: the key part differs by 50 %, q and v agree
        var keyOnly = compare(List.of(0.7), List.of(0.7), Map.of(bias, t(1, 1, 1.5f, 1.5f, 1, 1)),
                Map.of(bias, t(1, 1, 1, 1, 1, 1)), null);
        assertThat(keyOnly.passed()).isTrue();
        var query = compare(List.of(0.7), List.of(0.7), Map.of(bias, t(1.5f, 1, 1, 1, 1, 1)),
                Map.of(bias, t(1, 1, 1, 1, 1, 1)), null);
        assertThat(query.passed()).isFalse();
        assertThat(query.worstWeight()).isEqualTo(bias + "[q]");
    }

    @Test
    void runsOfDifferentLengthsAreNotCompared() {
        assertThatThrownBy(() -> compare(List.of(0.7), List.of(0.7, 0.6), Map.of(), Map.of(), null))
                .hasMessage("our run has 1 steps and the reference 2; expected the same steps");
    }
}
