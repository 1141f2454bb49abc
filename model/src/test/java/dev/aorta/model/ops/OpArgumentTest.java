package dev.aorta.model.ops;

import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad arguments fail before any launch: these ops get no context at all (null), so reaching a launch would
 * be a NullPointerException instead of the message.
 */
class OpArgumentTest {
    private static Tensor f32(int... shape) {
        return Tensor.meta(DType.FP32, shape);
    }

    @Test
    void residualAddNamesTheMismatchedOperand() {
        assertThatThrownBy(() -> new Elementwise(null).residualAdd(f32(3, 7), f32(3, 8), f32(3, 7), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("residual add: operand b has shape [3, 8], expected the shape of a [3, 7]");
    }

    @Test
    void geluReadsA16BitInputOnlyOfItsCopysDtype() {
        Tensor bf16 = Tensor.meta(DType.BF16, 3, 8);
        assertThatThrownBy(() -> new Elementwise(null).gelu(bf16, null, Tensor.meta(DType.FP16, 3, 8), null))
                .hasMessage("gelu: operand x is bf16 and its 16-bit copy fp16, expected one 16-bit dtype for both");
        assertThatThrownBy(() -> new Elementwise(null).gelu(Tensor.meta(DType.I32, 3, 8), f32(3, 8), null, null))
                .hasMessage("gelu: operand x is i32, expected fp32, bf16 or fp16");
        assertThatThrownBy(() -> new Elementwise(null).gelu(bf16, f32(3, 7), null, null))
                .hasMessage("gelu: operand y has shape [3, 7], expected the shape of x [3, 8]");
    }

    @Test
    void dropoutRejectsAProbabilityOfOne() {
        assertThatThrownBy(() -> new Elementwise(null).dropout(f32(4), f32(4), 1f, 1, 0, null))
                .hasMessage("dropout: probability 1.0 outside [0, 1)");
    }

    @Test
    void softmaxChecksDtypes() {
        assertThatThrownBy(() -> new Softmax(null).forward(f32(2, 3), Tensor.meta(DType.BF16, 2, 3), null))
                .hasMessage("softmax: operand y is bf16 [2, 3], expected fp32");
    }

    @Test
    void bceChecksTheBroadcastWeights() {
        assertThatThrownBy(() -> new BceWithLogits(null).forward(f32(4, 5), f32(4, 5), f32(4), null, f32(1), null))
                .hasMessage("bce with logits: operand weight has shape [4], expected [5]");
        assertThatThrownBy(() -> new BceWithLogits(null).forward(f32(4, 5), f32(5, 4), null, null, f32(1), null))
                .hasMessage("bce with logits: operand targets has shape [5, 4], expected the shape of logits [4, 5]");
    }

    @Test
    void stridedViewsAreRefusedByOpsThatIndexRowsDensely() {
        Tensor t = f32(4, 6).transpose(0, 1);
        assertThatThrownBy(() -> new Softmax(null).forward(t, f32(6, 4), null))
                .hasMessageStartingWith("softmax: operand x [6, 4] is a strided view");
    }

    @Test
    void attentionRejectsHeadsWiderThan128AndMismatchedKeys() {
        assertThatThrownBy(() -> new Attention(null).forward(f32(1, 2, 4, 129), f32(1, 2, 4, 129), f32(1, 2, 4, 129),
                f32(1, 2, 4, 129), f32(1, 2, 4), false, null))
                .hasMessage("attention: operand q (fp32) has shape [1, 2, 4, 129], expected [batch, heads, T >= 1, "
                        + "1 <= D <= 128]");
        assertThatThrownBy(() -> new Attention(null).forward(f32(1, 2, 4, 8), f32(1, 2, 5, 8), f32(1, 2, 4, 8),
                f32(1, 2, 4, 8), f32(1, 2, 4), false, null))
                .hasMessage("attention: operand k has shape [1, 2, 5, 8], expected the shape of q [1, 2, 4, 8]");
    }

    @Test
    void attentionOn16BitOperandsTakesHeadsUpTo64AndOneDtypeForQKV() {
        Tensor wide = Tensor.meta(DType.BF16, 1, 2, 4, 65);
        assertThatThrownBy(() -> new Attention(null).forward(wide, wide, wide, f32(1, 2, 4, 65), f32(1, 2, 4), false,
                null)).hasMessage("attention: operand q (bf16) has shape [1, 2, 4, 65], expected [batch, heads, "
                        + "T >= 1, 1 <= D <= 64]");
        Tensor q = Tensor.meta(DType.BF16, 1, 2, 4, 8);
        assertThatThrownBy(() -> new Attention(null).forward(q, f32(1, 2, 4, 8), q, f32(1, 2, 4, 8), f32(1, 2, 4),
                false, null)).hasMessage("attention: operand k is fp32 [1, 2, 4, 8], expected bf16");
        assertThatThrownBy(() -> new Attention(null).forward(q, q, q, q, f32(1, 2, 4), false, null))
                .hasMessage("attention: operand o is bf16 [1, 2, 4, 8], expected fp32");
    }

    @Test
    void topKGatingRejectsKOutsideTheExperts() {
        Tensor experts = Tensor.meta(DType.I32, 3, 5);
        assertThatThrownBy(() -> new TopKGating(null).forward(f32(3, 4), experts, f32(3, 5), null))
                .hasMessage("top-k gating: k = 5 (gates [3, 5]) must lie in [1, min(32, experts 4)]");
        assertThatThrownBy(() -> new TopKGating(null).forward(f32(3, 4), Tensor.meta(DType.FP32, 3, 2), f32(3, 2),
                null)).hasMessage("top-k gating: operand experts is fp32 [3, 2], expected i32");
    }

    @Test
    void crossEntropyWantsIntegerTargetsPerRow() {
        assertThatThrownBy(() -> new CrossEntropy(null).forward(f32(4, 10), f32(4), -100, f32(4), f32(4), f32(2),
                null)).hasMessage("cross entropy: operand target is fp32 [4], expected i32");
        assertThatThrownBy(() -> new CrossEntropy(null).forward(f32(4, 10), Tensor.meta(DType.I32, 5), -100, f32(4),
                f32(4), f32(2), null)).hasMessage("cross entropy: operand target has shape [5], expected [4]");
    }

    @Test
    void concatNeedsTheSameLeadingDimensionsAndTheSummedWidth() {
        assertThatThrownBy(() -> new Concat(null).forward(java.util.List.of(f32(2, 3), f32(3, 4)), f32(2, 7), null))
                .hasMessage("concat: operand input 1 has shape [3, 4], expected [2, 4]");
        assertThatThrownBy(() -> new Concat(null).forward(java.util.List.of(f32(2, 3), f32(2, 4)), f32(2, 8), null))
                .hasMessage("concat: operand out has shape [2, 8], expected [2, 7]");
    }

    @Test
    void attentionKernelsRefuseMoreSequencesThanTheirGridHolds() {
        Tensor q = Tensor.meta(DType.BF16, 70_000, 1, 4, 8);
        assertThatThrownBy(() -> new Attention(null).forward(q, q, q, f32(70_000, 1, 4, 8), f32(70_000, 1, 4), false, null))
                .hasMessage("attention: operand q has shape [70000, 1, 4, 8], batch x heads 70000, more than the 65535"
                        + " the kernels' grid allows; split the batch");
        Tensor q32 = f32(70_000, 1, 4, 8);
        // fp32 with no scores budget: the flash kernels
        assertThatThrownBy(() -> new Attention(null, 0).forward(q32, q32, q32, q32, f32(70_000, 1, 4), false, null))
                .hasMessageContaining("batch x heads 70000, more than the 65535");
    }

    @Test
    void maxPoolRefusesInputsItsInt32ArgmaxCannotAddress() {
        Tensor x = f32(1, 1, 65_536, 32_769);
        assertThatThrownBy(() -> new MaxPool2d(null, 2, 2, 0).forward(x, f32(1, 1, 32_768, 16_384),
                Tensor.meta(DType.I32, 1, 1, 32_768, 16_384), null))
                .hasMessage("max pool: operand x has shape [1, 1, 65536, 32769], 2147549184 elements, more than the"
                        + " 2^31 - 1 the int32 argmax indices address; split the batch");
    }
}
