package dev.aorta.core.event;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class Dim3Test {
    /** A record of the same components with the methods the compiler generates, to hold the written-out ones to. */
    private record Generated(int x, int y, int z) {
    }

    @Test
    void hashesAndComparesAsAGeneratedRecordWould() {
        int[][] shapes = {{0, 0, 0}, {1, 1, 1}, {128, 1, 1}, {65535, 65535, 64}, {-1, Integer.MAX_VALUE, Integer.MIN_VALUE},
                {7, 3, 2}, {2, 3, 7}};
        for (int[] s : shapes) {
            assertThat(new Dim3(s[0], s[1], s[2]).hashCode()).isEqualTo(new Generated(s[0], s[1], s[2]).hashCode());
            for (int[] t : shapes) {
                assertThat(new Dim3(s[0], s[1], s[2]).equals(new Dim3(t[0], t[1], t[2])))
                        .isEqualTo(new Generated(s[0], s[1], s[2]).equals(new Generated(t[0], t[1], t[2])));
            }
        }
        assertThat(new Dim3(1, 2, 3)).isNotEqualTo(null).isNotEqualTo(new Generated(1, 2, 3));
    }
}
