package dev.aorta.trainer.data;

import org.apache.commons.statistics.distribution.NormalDistribution;
import org.apache.commons.statistics.inference.KolmogorovSmirnovTest;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The dataset's normals ({@link CounterRandom#normal}, a counter-based ziggurat) have the standard normal
 * distribution: moments, Kolmogorov-Smirnov against Φ and against a Box-Muller reference, the tail beyond the
 * ziggurat's base layer, and the share of draws in its slow paths. The keys are fixed, so the tests are
 * deterministic; the bounds are about 5 standard errors wide.
 */
class NormalGeneratorTest {
    private static final NormalDistribution PHI = NormalDistribution.of(0, 1);

    private static double[] draws(long seed, int n) {
        long key = CounterRandom.key(seed, 1);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = CounterRandom.normal(key, i);
        }
        return x;
    }

    @Test
    void theFirstFourMomentsAreTheStandardNormals() {
        int n = 4_000_000;
        double[] x = draws(42, n);
        double m1 = 0;
        for (double v : x) {
            m1 += v;
        }
        m1 /= n;
        double m2 = 0;
        double m3 = 0;
        double m4 = 0;
        for (double v : x) {
            double d = v - m1;
            m2 += d * d;
            m3 += d * d * d;
            m4 += d * d * d * d;
        }
        m2 /= n;
        m3 /= n;
        m4 /= n;
        // standard errors at n = 4e6: mean 5e-4, variance 7e-4, skewness 1.2e-3, excess kurtosis 2.4e-3
        assertThat(m1).isCloseTo(0, within(0.0025));
        assertThat(m2).isCloseTo(1, within(0.0035));
        assertThat(m3 / Math.pow(m2, 1.5)).isCloseTo(0, within(0.006));
        assertThat(m4 / (m2 * m2) - 3).isCloseTo(0, within(0.012));
    }

    @Test
    void kolmogorovSmirnovAcceptsTheStandardNormalAndTheBoxMullerReference() {
        double[] x = draws(7, 200_000);
        double p = KolmogorovSmirnovTest.withDefaults().test(x, PHI::cumulativeProbability).getPValue();
        assertThat(p).isGreaterThan(0.001);
        SplittableRandom rnd = new SplittableRandom(11);
        double[] reference = new double[200_000];
        for (int i = 0; i < reference.length; i += 2) {
            double u1 = 1 - rnd.nextDouble();
            double u2 = rnd.nextDouble();
            double r = Math.sqrt(-2 * Math.log(u1));
            reference[i] = r * Math.cos(2 * Math.PI * u2);
            reference[i + 1] = r * Math.sin(2 * Math.PI * u2);
        }
        double p2 = KolmogorovSmirnovTest.withDefaults().test(x, reference).getPValue();
        assertThat(p2).isGreaterThan(0.001);
    }

    @Test
    void theTailBeyondTheBaseLayerHasItsNormalShare() {
        int n = 4_000_000;
        double[] x = draws(3, n);
        double r = 3.442619855899;
        long beyond = 0;
        long farBeyond = 0;
        for (double v : x) {
            beyond += Math.abs(v) > r ? 1 : 0;
            farBeyond += Math.abs(v) > 4.5 ? 1 : 0;
        }
        double expected = 2 * PHI.survivalProbability(r) * n;        // 2 304
        double expectedFar = 2 * PHI.survivalProbability(4.5) * n;   // 27
        assertThat((double) beyond).isCloseTo(expected, within(5 * Math.sqrt(expected)));
        assertThat((double) farBeyond).isCloseTo(expectedFar, within(5 * Math.sqrt(expectedFar)));
    }

    @Test
    void aboutOneDrawIn36TakesTheSlowPath() {
        long key = CounterRandom.key(5, 1);
        int n = 1_000_000;
        int slow = 0;
        for (int i = 0; i < n; i++) {
            slow += Double.isNaN(NormalZiggurat.accepted(CounterRandom.bits(key, i))) ? 1 : 0;
        }
        // a uniform layer i and a uniform |u| < 1 accept with probability mean_i x[i+1]/x[i] = 97.24 % for these
        // 128 layers (the top layer, x[128] = 0, never accepts at once)
        assertThat(slow / (double) n).isCloseTo(0.0276, within(0.001));
    }

    @Test
    void aNormalIsAFunctionOfKeyAndIndexAlone() {
        long key = CounterRandom.key(99, 1);
        float[] forward = new float[10_000];
        for (int i = 0; i < forward.length; i++) {
            forward[i] = CounterRandom.normal(key, i);
        }
        for (int i = forward.length - 1; i >= 0; i--) {
            assertThat(CounterRandom.normal(key, i)).isEqualTo(forward[i]);
        }
    }
}
