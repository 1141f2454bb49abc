package dev.aorta.model.reference;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.aorta.model.reference.FiniteDifference.check;
import static dev.aorta.model.reference.FiniteDifference.random;
import static dev.aorta.model.reference.FiniteDifference.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RefLossAndGatingTest {
    private final Random rnd = new Random(21);

    @Test
    void crossEntropyIgnoresRowsAndItsGradientChecks() {
        int n = 4, c = 5, ignore = -100;
        double[] x = random(rnd, n * c);
        int[] target = {3, ignore, 0, 4};
        double dloss = 0.7;
        check("cross entropy", xx -> new double[] {RefLoss.crossEntropy(xx, target, n, c, ignore)}, x,
                new double[] {dloss}, RefLoss.crossEntropyBackward(x, target, n, c, ignore, dloss));
        // uniform logits: the loss is log(c) whatever the target
        assertThat(RefLoss.crossEntropy(new double[5], new int[] {2}, 1, 5, ignore)).isCloseTo(Math.log(5), within(1e-15));
        assertThat(RefLoss.crossEntropyBackward(x, target, n, c, ignore, 1)[c]).isZero();
    }

    @Test
    void topKPicksTheLargestAndRenormalises() {
        double[] logits = {0.1, 2.0, -1.0, 2.0, 0.5};
        RefGating.Routing r = RefGating.topK(logits, 1, 5, 3);
        assertThat(r.experts()).containsExactly(1, 3, 4); // the tie goes to the lower index
        assertThat(r.gates()[0] + r.gates()[1] + r.gates()[2]).isCloseTo(1, within(1e-15));
        double sel = 2 * Math.exp(2.0) + Math.exp(0.5);
        assertThat(r.gates()[2]).isCloseTo(Math.exp(0.5) / sel, within(1e-15));
    }

    @Test
    void topKGradientChecksAwayFromTies() {
        int n = 3, e = 6, k = 2;
        double[] x = random(rnd, n * e);
        double[] dg = upstream(rnd, n * k);
        RefGating.Routing routing = RefGating.topK(x, n, e, k);
        // the selection is piecewise constant: small steps keep it, so central differences see the smooth part
        check("top-k gating", xx -> RefGating.topK(xx, n, e, k).gates(), x, dg,
                RefGating.topKBackward(routing, dg, n, e, k));
    }
}
