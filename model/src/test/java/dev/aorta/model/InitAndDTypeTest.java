package dev.aorta.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class InitAndDTypeTest {

    @Test
    void initDependsOnSeedAndNameOnly() {
        assertThat(Init.uniform(1, "a", 1f, 100)).isEqualTo(Init.uniform(1, "a", 1f, 100));
        assertThat(Init.uniform(1, "a", 1f, 100)).isNotEqualTo(Init.uniform(1, "b", 1f, 100));
        assertThat(Init.uniform(1, "a", 1f, 100)).isNotEqualTo(Init.uniform(2, "a", 1f, 100));
    }

    @Test
    void uniformStaysInItsBoundAndNormalHasItsMoments() {
        float[] u = Init.uniform(3, "w", 0.25f, 10_000).toFloats();
        double mean = 0;
        for (float v : u) {
            assertThat(Math.abs(v)).isLessThanOrEqualTo(0.25f);
            mean += v / u.length;
        }
        assertThat(mean).isBetween(-0.01, 0.01);
        float[] n = Init.normal(3, "e", 2f, 20_001).toFloats();
        double m = 0;
        double sq = 0;
        for (float v : n) {
            m += v / n.length;
            sq += (double) v * v / n.length;
        }
        assertThat(m).isBetween(-0.05, 0.05);
        assertThat(Math.sqrt(sq - m * m)).isBetween(1.95, 2.05);
        assertThat(Init.linearBound(16)).isEqualTo(0.25f);
    }

    @Test
    void bf16RoundsToNearestEven() {
        assertThat(DType.fromBf16(DType.toBf16(1.0f))).isEqualTo(1.0f);
        // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even pattern, 1.0
        assertThat(DType.fromBf16(DType.toBf16(1f + 0x1p-8f))).isEqualTo(1.0f);
        assertThat(DType.fromBf16(DType.toBf16(1f + 0x1p-8f + 0x1p-12f))).isEqualTo(1f + 0x1p-7f);
        assertThat(DType.fromBf16(DType.toBf16(Float.NaN))).isNaN();
    }
}
