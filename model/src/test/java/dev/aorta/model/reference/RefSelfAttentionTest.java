package dev.aorta.model.reference;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The property a KV cache relies on: with the causal mask, the outputs at the first t1 positions of a
 * sequence do not depend on what follows; without it they do.
 */
class RefSelfAttentionTest {

    @Test
    void causalOutputsOfAPrefixAreThePrefixsOwn() {
        Random rnd = new Random(11);
        int b = 2;
        int t = 6;
        int t1 = 4;
        int e = 8;
        int h = 2;
        Map<String, double[]> p = new LinkedHashMap<>();
        p.put("in_proj_weight", FiniteDifference.random(rnd, 3 * e * e));
        p.put("in_proj_bias", FiniteDifference.random(rnd, 3 * e));
        p.put("out_proj.weight", FiniteDifference.random(rnd, e * e));
        p.put("out_proj.bias", FiniteDifference.random(rnd, e));
        double[] x = FiniteDifference.random(rnd, b * t * e);
        double[] prefix = new double[b * t1 * e];
        for (int bb = 0; bb < b; bb++) {
            System.arraycopy(x, bb * t * e, prefix, bb * t1 * e, t1 * e);
        }
        double[] whole = RefSelfAttention.forward(p, x, b, t, e, h, true);
        double[] part = RefSelfAttention.forward(p, prefix, b, t1, e, h, true);
        double[] wholeOpen = RefSelfAttention.forward(p, x, b, t, e, h, false);
        double[] partOpen = RefSelfAttention.forward(p, prefix, b, t1, e, h, false);
        double openDiff = 0;
        for (int bb = 0; bb < b; bb++) {
            for (int i = 0; i < t1 * e; i++) {
                assertThat(part[bb * t1 * e + i]).isCloseTo(whole[bb * t * e + i], within(1e-12));
                openDiff = Math.max(openDiff, Math.abs(partOpen[bb * t1 * e + i] - wholeOpen[bb * t * e + i]));
            }
        }
        assertThat(openDiff).isGreaterThan(1e-3);
    }
}
