package dev.aorta.model.ranking;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RankingConfigTest {

    @Test
    void defaultIsTheTrainersSeedConfiguration() {
        RankingConfig c = RankingConfig.DEFAULT;
        assertThat(new int[] {c.batch(), c.seq(), c.denseFeatures(), c.denseDim(), c.sparseFeatures(), c.vocab(),
                c.embeddingDim(), c.modelDim(), c.heads(), c.layers(), c.mlpHidden()})
                .containsExactly(8, 64, 16, 128, 32, 60000, 192, 768, 12, 8, 2048);
        assertThat(c.rows()).isEqualTo(512);
        assertThat(c.withDropout(0f).dropout()).isZero();
    }

    @Test
    void rejectsSizesTheModelCannotHave() {
        assertThatThrownBy(() -> new RankingConfig(1, 1, 1, 1, 1, 10, 4, 10, 3, 1, 8, 0f))
                .hasMessageContaining("does not split into 3 heads");
        assertThatThrownBy(() -> new RankingConfig(0, 1, 1, 1, 1, 10, 4, 6, 3, 1, 8, 0f))
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> RankingConfig.DEFAULT.withDropout(1f)).hasMessageContaining("outside [0, 1)");
    }
}
