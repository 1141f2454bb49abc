package dev.aorta.trainer.data;

/**
 * Standard normals by the ziggurat method (Marsaglia and Tsang, "The Ziggurat Method for Generating Random
 * Variables", J. Stat. Softw. 5(8), 2000) in Doornik's form ("An Improved Ziggurat Method to Generate Normal Random
 * Samples", 2005), which takes the layer and the abscissa from independent bits. The density is covered by 128
 * layers of equal area V; a draw picks a layer and a signed abscissa u·x[i], and is accepted at once when it falls
 * inside the part of the layer wholly under the curve, which is 97.2 % of draws (the mean of x[i + 1] / x[i])
 * and costs one table look-up and
 * one multiplication (Box-Muller costs a logarithm, a square root and a sine or cosine per value). The rest go
 * through the wedge test, or for the base layer Marsaglia's tail algorithm beyond R; a rejected draw starts over
 * with fresh bits. The result has exactly the normal distribution (up to the 53-bit resolution of the abscissa).
 */
final class NormalZiggurat {
    private static final int LAYERS = 128;
    /** Where the tail starts, and the common area of the layers, for 128 layers (Marsaglia and Tsang). */
    private static final double R = 3.442619855899;
    private static final double V = 9.91256303526217e-3;
    /** x[0] = V / f(R) (the base layer's width with the tail folded in), x[1] = R, ..., x[128] = 0. */
    private static final double[] X = new double[LAYERS + 1];
    /** x[i + 1] / x[i]: the part of layer i wholly under the density. */
    private static final double[] RATIO = new double[LAYERS];

    static {
        double f = Math.exp(-0.5 * R * R);
        X[0] = V / f;
        X[1] = R;
        X[LAYERS] = 0;
        for (int i = 2; i < LAYERS; i++) {
            X[i] = Math.sqrt(-2 * Math.log(V / X[i - 1] + f));
            f = Math.exp(-0.5 * X[i] * X[i]);
        }
        for (int i = 0; i < LAYERS; i++) {
            RATIO[i] = X[i + 1] / X[i];
        }
    }

    /** 64 random bits per call: the ziggurat asks for more only when the first draw is not accepted at once. */
    interface Bits {
        long next();
    }

    private NormalZiggurat() {
    }

    /** The value of draw {@code b} when the ziggurat accepts it at once (97.2 % of draws), else NaN. */
    static double accepted(long b) {
        int layer = (int) (b & (LAYERS - 1));
        double u = 2 * ((b >>> 11) * 0x1.0p-53) - 1;
        return Math.abs(u) < RATIO[layer] ? u * X[layer] : Double.NaN;
    }

    /** One standard normal from the first draw {@code first} and, when that is rejected, further draws of {@code more}. */
    static double sample(long first, Bits more) {
        long b = first;
        while (true) {
            int layer = (int) (b & (LAYERS - 1));
            double u = 2 * ((b >>> 11) * 0x1.0p-53) - 1;  // (-1, 1), independent of the layer's 7 bits
            double x = u * X[layer];
            if (Math.abs(u) < RATIO[layer]) {
                return x;
            }
            if (layer == 0) {
                return tail(u < 0, more);
            }
            double f0 = Math.exp(-0.5 * (X[layer] * X[layer] - x * x));
            double f1 = Math.exp(-0.5 * (X[layer + 1] * X[layer + 1] - x * x));
            if (f1 + uniform(more.next()) * (f0 - f1) < 1.0) {
                return x;
            }
            b = more.next();
        }
    }

    /** Marsaglia's method for the normal beyond R. */
    private static double tail(boolean negative, Bits more) {
        double x;
        double y;
        do {
            x = Math.log(uniformOpen(more.next())) / R;
            y = Math.log(uniformOpen(more.next()));
        } while (-2 * y < x * x);
        return negative ? x - R : R - x;
    }

    private static double uniform(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }

    /** In (0, 1]: a logarithm of it is finite. */
    private static double uniformOpen(long bits) {
        return ((bits >>> 11) + 1) * 0x1.0p-53;
    }
}
