package dev.aorta.model.reference;

/** Layer norm over the last dimension of x [n, c]: y = (x - mean)/sqrt(var + eps)·γ + β, biased variance. */
public final class RefLayerNorm {
    private RefLayerNorm() {
    }

    public static double[] forward(double[] x, double[] gamma, double[] beta, int n, int c, double eps) {
        double[] y = new double[n * c];
        for (int r = 0; r < n; r++) {
            double[] ms = stats(x, r, c, eps);
            for (int i = 0; i < c; i++) {
                y[r * c + i] = (x[r * c + i] - ms[0]) * ms[1] * gamma[i] + beta[i];
            }
        }
        return y;
    }

    public record Grads(double[] dx, double[] dgamma, double[] dbeta) {
    }

    /** dx = rstd·(ĝ - mean(ĝ) - x̂·mean(ĝ·x̂)) with ĝ = dy·γ, x̂ the normalised input. */
    public static Grads backward(double[] x, double[] gamma, double[] dy, int n, int c, double eps) {
        double[] dx = new double[n * c];
        double[] dgamma = new double[c];
        double[] dbeta = new double[c];
        for (int r = 0; r < n; r++) {
            double[] ms = stats(x, r, c, eps);
            double meanG = 0;
            double meanGx = 0;
            for (int i = 0; i < c; i++) {
                double xhat = (x[r * c + i] - ms[0]) * ms[1];
                double g = dy[r * c + i] * gamma[i];
                meanG += g / c;
                meanGx += g * xhat / c;
                dgamma[i] += dy[r * c + i] * xhat;
                dbeta[i] += dy[r * c + i];
            }
            for (int i = 0; i < c; i++) {
                double xhat = (x[r * c + i] - ms[0]) * ms[1];
                dx[r * c + i] = ms[1] * (dy[r * c + i] * gamma[i] - meanG - xhat * meanGx);
            }
        }
        return new Grads(dx, dgamma, dbeta);
    }

    /** {mean, 1/sqrt(var + eps)} of row r. */
    static double[] stats(double[] x, int r, int c, double eps) {
        double mean = 0;
        for (int i = 0; i < c; i++) {
            mean += x[r * c + i] / c;
        }
        double var = 0;
        for (int i = 0; i < c; i++) {
            double d = x[r * c + i] - mean;
            var += d * d / c;
        }
        return new double[] {mean, 1 / Math.sqrt(var + eps)};
    }
}
