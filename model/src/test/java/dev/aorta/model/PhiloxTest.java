package dev.aorta.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PhiloxTest {

    @Test
    void matchesTheRandom123KnownAnswers() {
        // Random123's kat_vectors for philox4x32_10
        assertThat(Philox.block(0, 0, 0, 0, 0, 0)).containsExactly(0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
        assertThat(Philox.block(-1, -1, -1, -1, -1, -1))
                .containsExactly(0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
        assertThat(Philox.block(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0))
                .containsExactly(0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);
    }

    @Test
    void uniformsAreInTheUnitIntervalAndDependOnSeedAndOffset() {
        double mean = 0;
        for (int i = 0; i < 4000; i++) {
            float u = Philox.uniform(42, 7, i);
            assertThat(u).isBetween(0f, 0.99999995f);
            mean += u / 4000;
        }
        assertThat(mean).isBetween(0.48, 0.52);
        assertThat(Philox.uniform(42, 7, 5)).isNotEqualTo(Philox.uniform(43, 7, 5));
        assertThat(Philox.uniform(42, 7, 5)).isNotEqualTo(Philox.uniform(42, 8, 5));
    }
}
