package dev.aorta.analyzer.read;

import dev.aorta.core.metric.GemmThroughput;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The GEMM each ATen op computes from PyTorch's recorded {@code Input Dims}. */
class OpArgumentsTest {

    @Test
    void gemmShapesFollowAtenSemantics() {
        assertThat(OpArguments.gemmShape("aten::mm", new long[][] {{64, 32}, {32, 16}}, List.of("c10::BFloat16", "c10::BFloat16")))
                .isEqualTo(new GemmThroughput.Shape(64, 16, 32, 1, "c10::BFloat16"));
        assertThat(OpArguments.gemmShape("aten::addmm", new long[][] {{16}, {64, 32}, {32, 16}, null, null}, null))
                .isEqualTo(new GemmThroughput.Shape(64, 16, 32, 1, ""));
        assertThat(OpArguments.gemmShape("aten::bmm", new long[][] {{8, 64, 32}, {8, 32, 16}}, null))
                .isEqualTo(new GemmThroughput.Shape(64, 16, 32, 8, ""));
        assertThat(OpArguments.gemmShape("aten::baddbmm", new long[][] {{8, 64, 16}, {8, 64, 32}, {8, 32, 16}}, null))
                .isEqualTo(new GemmThroughput.Shape(64, 16, 32, 8, ""));
        // linear: input [4, 10, 32] · weight [16, 32]ᵀ: 40 rows
        assertThat(OpArguments.gemmShape("aten::linear", new long[][] {{4, 10, 32}, {16, 32}, {16}}, null))
                .isEqualTo(new GemmThroughput.Shape(40, 16, 32, 1, ""));
        // matmul broadcasts [2, 1, 64, 32] against [3, 32, 16]: batch 2·3
        assertThat(OpArguments.gemmShape("aten::matmul", new long[][] {{2, 1, 64, 32}, {3, 32, 16}}, null))
                .isEqualTo(new GemmThroughput.Shape(64, 16, 32, 6, ""));
        // a vector times a matrix is one row
        assertThat(OpArguments.gemmShape("aten::matmul", new long[][] {{32}, {32, 16}}, null))
                .isEqualTo(new GemmThroughput.Shape(1, 16, 32, 1, ""));
    }

    @Test
    void mismatchedEmptyOrOtherOpsAreNoGemm() {
        assertThat(OpArguments.gemmShape("aten::mm", new long[][] {{64, 32}, {31, 16}}, null)).isNull();
        assertThat(OpArguments.gemmShape("aten::mm", new long[][] {{0, 32}, {32, 16}}, null)).isNull();
        assertThat(OpArguments.gemmShape("aten::add", new long[][] {{64, 32}, {64, 32}}, null)).isNull();
        assertThat(OpArguments.gemmShape("aten::mm", null, null)).isNull();
    }

    @Test
    void elementSizesArePyTorchs() {
        assertThat(OpArguments.elementBytes("Float")).isEqualTo(4);
        assertThat(OpArguments.elementBytes("BFloat16")).isEqualTo(2);
        assertThat(OpArguments.elementBytes("Long")).isEqualTo(8);
        assertThat(OpArguments.elementBytes("Mystery")).isEqualTo(-1);
    }
}
