package dev.aorta.model.reference;

import dev.aorta.model.Philox;

/**
 * Elementwise ops: exact (erf) GELU, as PyTorch's nn.GELU() and TransformerEncoderLayer(activation="gelu")
 * use by default; ReLU; residual add; dropout with the {@link Philox} mask.
 */
public final class RefElementwise {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

    private RefElementwise() {
    }

    public static double gelu(double x) {
        return 0.5 * x * (1 + Erf.erf(x * SQRT_HALF));
    }

    /** d gelu/dx = Φ(x) + x·φ(x). */
    public static double geluGrad(double x) {
        return 0.5 * (1 + Erf.erf(x * SQRT_HALF)) + x * INV_SQRT_2PI * Math.exp(-0.5 * x * x);
    }

    public static double[] gelu(double[] x) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = gelu(x[i]);
        }
        return y;
    }

    public static double[] geluBackward(double[] x, double[] dy) {
        double[] dx = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            dx[i] = dy[i] * geluGrad(x[i]);
        }
        return dx;
    }

    public static double[] relu(double[] x) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = Math.max(0, x[i]);
        }
        return y;
    }

    /** The subgradient at 0 is 0, as in PyTorch. */
    public static double[] reluBackward(double[] x, double[] dy) {
        double[] dx = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            dx[i] = x[i] > 0 ? dy[i] : 0;
        }
        return dx;
    }

    /** Residual add; its backward hands dy unchanged to both inputs. */
    public static double[] add(double[] a, double[] b) {
        double[] y = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            y[i] = a[i] + b[i];
        }
        return y;
    }

    /** Element i is kept when its uniform number is ≥ p, and then scaled by 1/(1 - p) (inverted dropout). */
    public static double[] dropoutMask(int n, double p, long seed, long offset) {
        double[] m = new double[n];
        for (int i = 0; i < n; i++) {
            m[i] = Philox.uniform(seed, offset, i) >= p ? 1 / (1 - p) : 0;
        }
        return m;
    }

    /** Dropout's forward and backward are both a product with the mask. */
    public static double[] times(double[] a, double[] mask) {
        double[] y = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            y[i] = a[i] * mask[i];
        }
        return y;
    }
}
