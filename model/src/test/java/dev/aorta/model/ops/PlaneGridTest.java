package dev.aorta.model.ops;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlaneGridTest {
    @Test
    void aPlaneIsCoveredByBlocksOf256Positions() {
        assertThat(PlaneGrid.x(1)).isEqualTo(1);
        assertThat(PlaneGrid.x(256)).isEqualTo(1);
        assertThat(PlaneGrid.x(257)).isEqualTo(2);
        assertThat(PlaneGrid.x(224L * 224)).isEqualTo(196);
        assertThat(PlaneGrid.x(224L * 224, 8)).isEqualTo(25);
    }

    @Test
    void rowsStayWithinCudasLimitAndAFewThousandBlocksSoThatBlocksTakeSeveralPlanes() {
        assertThat(PlaneGrid.y(5, 1)).isEqualTo(5);
        // SimpleConvNet's second im2col pass: 9 images x 576 rows of 12 544 positions (49 blocks each)
        int gridX = PlaneGrid.x(12_544);
        assertThat((long) gridX * PlaneGrid.y(9L * 576, gridX)).isLessThanOrEqualTo(4096);
        assertThat(PlaneGrid.y(1L << 40, 1)).isEqualTo(4096);
        // a plane wider than the block budget still gets one row of blocks
        assertThat(PlaneGrid.y(1L << 40, PlaneGrid.x(Integer.MAX_VALUE))).isEqualTo(1);
    }
}
