package dev.aorta.model.reference;

/**
 * erf in float64 (the JDK has none): the Maclaurin series below |x| = 2.5, where its terms lose at most about
 * three of double's digits to cancellation, and erfc's continued fraction (evaluated by Lentz's method) above.
 */
final class Erf {
    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    private Erf() {
    }

    static double erf(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        double a = Math.abs(x);
        if (a < 2.5) {
            double term = x;
            double sum = x;
            double x2 = x * x;
            for (int n = 1; n < 200; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-17 * Math.abs(sum)) {
                    break;
                }
            }
            return TWO_OVER_SQRT_PI * sum;
        }
        if (a > 27) {
            return Math.signum(x);
        }
        return Math.signum(x) * (1 - erfcContinuedFraction(a));
    }

    /** erfc(a) = exp(-a²)/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))), for a ≥ 2.5. */
    private static double erfcContinuedFraction(double a) {
        double tiny = 1e-300;
        double f = a;
        double c = a;
        double d = 0;
        for (int k = 1; k < 500; k++) {
            double coeff = k / 2.0;
            d = a + coeff * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = a + coeff / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) {
                break;
            }
        }
        return Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
    }
}
