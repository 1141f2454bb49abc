package dev.aorta.agent.jfr;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DimTextTest {
    @Test
    void aShapeSeenBeforeIsTheSameStringNotANewOne() {
        DimText dims = new DimText();
        String first = dims.of(128, 1, 1);

        assertThat(first).isEqualTo("128x1x1");
        assertThat(dims.of(128, 1, 1)).isSameAs(first);
    }

    @Test
    void everyShapeGetsItsOwnTextWhateverTookItsSlotBefore() {
        DimText dims = new DimText();
        // more shapes than slots: some share a slot and evict each other, none is ever given another's text
        for (int round = 0; round < 2; round++) {
            for (long x = 1; x <= 600; x++) {
                assertThat(dims.of(x, x % 7, 65535 - x)).isEqualTo(x + "x" + (x % 7) + "x" + (65535 - x));
            }
        }
        assertThat(dims.of(2147483647L, 65535, 65535)).isEqualTo("2147483647x65535x65535");
    }
}
