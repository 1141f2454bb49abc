package dev.aorta.model.reference;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.aorta.model.reference.FiniteDifference.check;
import static dev.aorta.model.reference.FiniteDifference.random;
import static dev.aorta.model.reference.FiniteDifference.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Every reference backward against central differences of its forward, on small odd shapes. */
class ReferenceGradientTest {
    private final Random rnd = new Random(13);

    @Test
    void linear() {
        int n = 3, in = 5, out = 4;
        double[] x = random(rnd, n * in);
        double[] w = random(rnd, out * in);
        double[] b = random(rnd, out);
        double[] r = upstream(rnd, n * out);
        RefLinear.Grads g = RefLinear.backward(x, w, r, n, in, out);
        check("linear dx", xx -> RefLinear.forward(xx, w, b, n, in, out), x, r, g.dx());
        check("linear dw", ww -> RefLinear.forward(x, ww, b, n, in, out), w, r, g.dw());
        check("linear db", bb -> RefLinear.forward(x, w, bb, n, in, out), b, r, g.db());
    }

    @Test
    void layerNorm() {
        int n = 3, c = 7;
        double eps = 1e-5;
        double[] x = random(rnd, n * c);
        double[] gamma = random(rnd, c);
        double[] beta = random(rnd, c);
        double[] r = upstream(rnd, n * c);
        RefLayerNorm.Grads g = RefLayerNorm.backward(x, gamma, r, n, c, eps);
        check("layer norm dx", xx -> RefLayerNorm.forward(xx, gamma, beta, n, c, eps), x, r, g.dx());
        check("layer norm dgamma", gg -> RefLayerNorm.forward(x, gg, beta, n, c, eps), gamma, r, g.dgamma());
        check("layer norm dbeta", bb -> RefLayerNorm.forward(x, gamma, bb, n, c, eps), beta, r, g.dbeta());
    }

    @Test
    void layerNormOutputHasZeroMeanAndUnitVariancePerRow() {
        double[] x = random(rnd, 9);
        double[] ones = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        double[] y = RefLayerNorm.forward(x, ones, new double[9], 1, 9, 0);
        assertThat(FiniteDifference.dot(y, ones)).isCloseTo(0, within(1e-12));
        assertThat(FiniteDifference.dot(y, y) / 9).isCloseTo(1, within(1e-12));
    }

    @Test
    void geluIsTheExactErfFormAndItsGradientChecks() {
        // values of x·Φ(x) from the normal CDF: Φ(1) = 0.8413447460685429, Φ(-0.5) = 0.3085375387259869
        assertThat(RefElementwise.gelu(1.0)).isCloseTo(0.8413447460685429, within(1e-15));
        assertThat(RefElementwise.gelu(-0.5)).isCloseTo(-0.5 * 0.3085375387259869, within(1e-15));
        assertThat(RefElementwise.gelu(4.0)).isCloseTo(4 * 0.9999683287581669, within(1e-14));
        assertThat(Erf.erf(3.0)).isCloseTo(0.9999779095030014, within(1e-16));
        assertThat(Erf.erf(-0.1)).isCloseTo(-0.1124629160182849, within(1e-16));
        double[] x = {-6, -3.2, -2.5, -1, -0.3, 0, 0.2, 1.7, 2.49, 2.51, 5};
        double[] r = upstream(rnd, x.length);
        check("gelu", RefElementwise::gelu, x, r, RefElementwise.geluBackward(x, r));
    }

    @Test
    void reluAndResidualAdd() {
        double[] x = {-2, -0.5, 0.5, 3};
        double[] r = upstream(rnd, 4);
        check("relu", RefElementwise::relu, x, r, RefElementwise.reluBackward(x, r));
        double[] b = random(rnd, 4);
        check("residual add, first input", a -> RefElementwise.add(a, b), x, r, r);
        check("residual add, second input", bb -> RefElementwise.add(x, bb), b, r, r);
    }

    @Test
    void softmax() {
        int n = 2, c = 5;
        double[] x = random(rnd, n * c);
        double[] r = upstream(rnd, n * c);
        double[] y = RefSoftmax.forward(x, n, c);
        assertThat(y[0] + y[1] + y[2] + y[3] + y[4]).isCloseTo(1, within(1e-15));
        check("softmax", xx -> RefSoftmax.forward(xx, n, c), x, r, RefSoftmax.backward(y, r, n, c));
        // shifting a row by a constant changes nothing: the max subtraction is exact
        double[] big = {1000, 1001, 1002};
        assertThat(RefSoftmax.forward(big, 1, 3)).containsExactly(RefSoftmax.forward(new double[] {0, 1, 2}, 1, 3));
    }

    @Test
    void embeddingMeanPoolScattersIntoRepeatedRows() {
        int v = 6, d = 3, b = 2, l = 4;
        int[] ids = {0, 5, 5, 2, 3, 3, 3, 0};
        double[] table = random(rnd, v * d);
        double[] r = upstream(rnd, b * d);
        double[] dt = RefEmbedding.backward(r, ids, b, l, d, v);
        check("embedding mean-pool", t -> RefEmbedding.forward(t, ids, b, l, d), table, r, dt);
        assertThat(dt[4 * d]).isZero(); // id 4 is never looked up
    }

    @Test
    void weightedBceWithLogits() {
        int n = 3, c = 4;
        double[] x = random(rnd, n * c);
        x[0] = 40; // far out in the tails: softplus must not overflow or lose the gradient
        x[1] = -40;
        double[] y = new double[n * c];
        for (int i = 0; i < y.length; i++) {
            y[i] = rnd.nextDouble(); // soft targets are allowed
        }
        double[] w = {0.5, 1, 2, 0.1};
        double[] p = {3, 1, 0.5, 2};
        double dloss = 1.7;
        double[] dx = RefLoss.bceWithLogitsBackward(x, y, w, p, n, c, dloss);
        check("bce with logits", xx -> new double[] {RefLoss.bceWithLogits(xx, y, w, p, n, c)}, x,
                new double[] {dloss}, dx);
        // unweighted, one element: -(y log σ(x) + (1-y) log(1-σ(x)))
        double s = 1 / (1 + Math.exp(-0.3));
        assertThat(RefLoss.bceWithLogits(new double[] {0.3}, new double[] {0.8}, null, null, 1, 1))
                .isCloseTo(-(0.8 * Math.log(s) + 0.2 * Math.log(1 - s)), within(1e-15));
    }

    @Test
    void attentionWithAndWithoutTheCausalMask() {
        int n = 2, t = 4, d = 3;
        for (boolean causal : new boolean[] {false, true}) {
            double[] q = random(rnd, n * t * d);
            double[] k = random(rnd, n * t * d);
            double[] v = random(rnd, n * t * d);
            double[] r = upstream(rnd, n * t * d);
            RefAttention.Grads g = RefAttention.backward(q, k, v, r, n, t, d, causal);
            check("attention dq, causal " + causal, qq -> RefAttention.forward(qq, k, v, n, t, d, causal), q, r, g.dq());
            check("attention dk, causal " + causal, kk -> RefAttention.forward(q, kk, v, n, t, d, causal), k, r, g.dk());
            check("attention dv, causal " + causal, vv -> RefAttention.forward(q, k, vv, n, t, d, causal), v, r, g.dv());
        }
        // causal: the first query sees only the first key, so its output is v's first row
        double[] q = random(rnd, 6);
        double[] k = random(rnd, 6);
        double[] v = random(rnd, 6);
        double[] o = RefAttention.forward(q, k, v, 1, 3, 2, true);
        assertThat(new double[] {o[0], o[1]}).containsExactly(v[0], v[1]);
    }
}
