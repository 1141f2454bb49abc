package dev.aorta.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Views and shape checks, on meta tensors (no GPU needed). */
class TensorShapeTest {

    @Test
    void viewInfersOneSizeAndKeepsContiguousStrides() {
        Tensor t = Tensor.meta(DType.FP32, 2, 3, 4);
        Tensor v = t.view(-1, 4);
        assertThat(v.shape()).containsExactly(6, 4);
        assertThat(v.strides()).containsExactly(4, 1);
        assertThat(v.isContiguous()).isTrue();
    }

    @Test
    void viewOfTheWrongSizeNamesBothShapes() {
        assertThatThrownBy(() -> Tensor.meta(DType.FP32, 2, 3).view(4, 2))
                .hasMessage("view: operand self has shape [2, 3] (6 elements), cannot be viewed as [4, 2]");
    }

    @Test
    void transposeSwapsStridesAndIsNotContiguous() {
        Tensor t = Tensor.meta(DType.BF16, 5, 7).transpose(0, 1);
        assertThat(t.shape()).containsExactly(7, 5);
        assertThat(t.strides()).containsExactly(1, 7);
        assertThat(t.isContiguous()).isFalse();
        assertThatThrownBy(() -> t.view(35)).hasMessageContaining("is a strided view (strides [1, 7])");
    }

    @Test
    void sliceOfTheFirstDimensionStaysContiguousAndOfTheLastDoesNot() {
        Tensor t = Tensor.meta(DType.FP32, 4, 6);
        assertThat(t.slice(0, 1, 2).isContiguous()).isTrue();
        assertThat(t.slice(1, 1, 2).isContiguous()).isFalse();
        assertThat(t.slice(1, 1, 2).shape()).containsExactly(4, 2);
        assertThatThrownBy(() -> t.slice(1, 5, 2)).hasMessageContaining("[5, 7) is outside shape [4, 6]");
    }

    @Test
    void reinterpretReadsTheSameBytesAsAnotherDtypeWithinTheTensor() {
        Tensor block = Tensor.meta(DType.FP32, 10, 6);
        Tensor low = block.reinterpret(DType.BF16, 2, 60);
        assertThat(low.dtype()).isEqualTo(DType.BF16);
        assertThat(low.shape()).containsExactly(2, 60);
        assertThat(low.isContiguous()).isTrue();
        assertThatThrownBy(() -> block.reinterpret(DType.BF16, 121))
                .hasMessage("reinterpret: operand self is fp32 [10, 6] at byte 0, cannot be read as bf16 [121] (242"
                        + " bytes)");
    }

    @Test
    void reinterpretRefusesAStartBetweenElementsOfTheNewDtype() {
        Tensor odd = Tensor.meta(DType.BF16, 8).slice(0, 1, 6);
        assertThatThrownBy(() -> odd.reinterpret(DType.FP32, 2))
                .hasMessage("reinterpret: operand self is bf16 [6] at byte 2, cannot be read as fp32 [2] (8 bytes,"
                        + " misaligned)");
    }

    @Test
    void shapeChecksNameTheOpTheOperandAndBothShapes() {
        Tensor x = Tensor.meta(DType.FP32, 3, 7);
        assertThatThrownBy(() -> Shapes.require("linear", "x", x, Shapes.ANY, 8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("linear: operand x has shape [3, 7], expected [*, 8]");
        assertThatThrownBy(() -> Shapes.requireSame("residual add", "a", x, "b", Tensor.meta(DType.FP32, 3, 8)))
                .hasMessage("residual add: operand b has shape [3, 8], expected the shape of a [3, 7]");
        assertThatThrownBy(() -> Shapes.requireDtype("layer norm", "x", Tensor.meta(DType.FP16, 2), DType.FP32))
                .hasMessage("layer norm: operand x is fp16 [2], expected fp32");
    }

    @Test
    void metaTensorsHaveNoMemory() {
        assertThatThrownBy(() -> Tensor.meta(DType.FP32, 2).address()).hasMessageContaining("meta tensor");
    }

    @Test
    void metaTensorsHoldNoElementsSoNoneIsTheSameAsAnother() {
        Tensor m = Tensor.meta(DType.FP32, 4, 6);
        assertThat(m.sameElementsAs(m.view(24))).isFalse();
        assertThat(m.sameElementsAs(null)).isFalse();
    }
}
