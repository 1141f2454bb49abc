package dev.aorta.model.ops;

import dev.aorta.model.DType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which attention16.cu instance 16-bit heads get: the full-tile one only where it needs no bounds checks. */
class AttentionKernelChoiceTest {
    private static final long ALIGNED = 0x7f0000000200L;

    @Test
    void headsOf64AtAMultipleOf64TakeTheFullTileInstance() {
        assertThat(Attention.kernel16("forward", DType.BF16, 64, 64, ALIGNED))
                .isEqualTo("attention16_forward_bf16_full");
        assertThat(Attention.kernel16("backward_dq", DType.FP16, 2048, 64, ALIGNED))
                .isEqualTo("attention16_backward_dq_f16_full");
    }

    @Test
    void oddLengthsNarrowHeadsAndMisalignedTensorsTakeTheBoundsCheckedInstance() {
        assertThat(Attention.kernel16("forward", DType.BF16, 130, 64, ALIGNED)).isEqualTo("attention16_forward_bf16");
        assertThat(Attention.kernel16("forward", DType.BF16, 1, 64, ALIGNED)).isEqualTo("attention16_forward_bf16");
        assertThat(Attention.kernel16("backward_dkdv", DType.FP16, 64, 32, ALIGNED))
                .isEqualTo("attention16_backward_dkdv_f16");
        assertThat(Attention.kernel16("forward", DType.BF16, 64, 64, ALIGNED | 8))
                .isEqualTo("attention16_forward_bf16");
    }
}
