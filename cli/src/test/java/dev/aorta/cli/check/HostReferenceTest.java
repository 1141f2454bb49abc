package dev.aorta.cli.check;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HostReferenceTest {

    @Test
    void bf16RoundsToNearestEvenAndKeepsTheTopSixteenBits() {
        assertThat(HostReference.fromBf16(HostReference.toBf16(1.0f))).isEqualTo(1.0f);
        // 1 + 2^-8 is exactly halfway between two bf16 values: ties go to the even one (1.0)
        assertThat(HostReference.fromBf16(HostReference.toBf16(1.0f + 0x1p-8f))).isEqualTo(1.0f);
        // 1 + 3·2^-8 is halfway between 1+2^-7 and 1+2^-6: ties go to the even mantissa (1+2^-6)
        assertThat(HostReference.fromBf16(HostReference.toBf16(1.0f + 3 * 0x1p-8f))).isEqualTo(1.0f + 0x1p-6f);
        assertThat(HostReference.fromBf16(HostReference.toBf16(-2.5f))).isEqualTo(-2.5f);
    }

    @Test
    void float64GemmIsColumnMajor() {
        // A = [[1,2],[3,4]] (column-major {1,3,2,4}), B = identity → C = A
        double[] a = {1, 3, 2, 4};
        double[] identity = {1, 0, 0, 1};
        assertThat(HostReference.gemm(a, identity, 2, 2, 2)).containsExactly(a);
        // A·B with B = [[0,1],[1,0]] swaps A's columns
        assertThat(HostReference.gemm(a, new double[] {0, 1, 1, 0}, 2, 2, 2)).containsExactly(2, 4, 1, 3);
    }

    @Test
    void relativeErrorIsZeroForEqualVectorsAndNaNNeverPasses() {
        assertThat(HostReference.relativeError(new double[] {1, 2}, new double[] {1, 2})).isZero();
        assertThat(HostReference.relativeError(new double[] {1, 2.2}, new double[] {1, 2}))
                .isCloseTo(0.2 / Math.sqrt(5), org.assertj.core.data.Offset.offset(1e-12));
        assertThat(HostReference.relativeError(new double[] {Double.NaN, 2}, new double[] {1, 2}) < 1).isFalse();
    }

    @Test
    void randomInputsAreNeverAllZero() {
        float[] x = HostReference.randomFloats(1000, 1);
        int nonZero = 0;
        for (float v : x) {
            assertThat(v).isBetween(-1f, 1f);
            nonZero += v != 0 ? 1 : 0;
        }
        assertThat(nonZero).isGreaterThan(990);
    }
}
