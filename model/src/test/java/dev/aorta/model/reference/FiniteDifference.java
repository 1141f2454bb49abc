package dev.aorta.model.reference;

import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks an analytic gradient against central differences of the scalar L(x) = Σ r·f(x), r fixed random
 * weights (so every output element contributes with its own sign and size).
 */
final class FiniteDifference {
    private FiniteDifference() {
    }

    static double[] random(Random rnd, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextGaussian();
        }
        return a;
    }

    /** The weights r: the upstream gradient dL/df the analytic backward must be given. */
    static double[] upstream(Random rnd, int n) {
        return random(rnd, n);
    }

    static void check(String what, Function<double[], double[]> f, double[] x, double[] r, double[] analytic) {
        double h = 1e-6;
        double worst = 0;
        double scale = 1e-12;
        for (int i = 0; i < x.length; i++) {
            double keep = x[i];
            x[i] = keep + h;
            double up = dot(r, f.apply(x));
            x[i] = keep - h;
            double down = dot(r, f.apply(x));
            x[i] = keep;
            double numeric = (up - down) / (2 * h);
            worst = Math.max(worst, Math.abs(numeric - analytic[i]));
            scale = Math.max(scale, Math.abs(numeric));
        }
        assertThat(worst / scale).as(what + ": max |numeric - analytic| / max |numeric|").isLessThan(1e-6);
    }

    static double dot(double[] a, double[] b) {
        assertThat(b).hasSameSizeAs(a);
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
