package dev.aorta.model.reference;

/** y = x·Wᵀ + b with x [n, in], W [out, in] (PyTorch's Linear layout), b [out] or null. */
public final class RefLinear {
    private RefLinear() {
    }

    public static double[] forward(double[] x, double[] w, double[] b, int n, int in, int out) {
        double[] y = new double[n * out];
        for (int r = 0; r < n; r++) {
            for (int o = 0; o < out; o++) {
                double s = b == null ? 0 : b[o];
                for (int i = 0; i < in; i++) {
                    s += x[r * in + i] * w[o * in + i];
                }
                y[r * out + o] = s;
            }
        }
        return y;
    }

    /** dx = dy·W, dW = dyᵀ·x, db = column sums of dy. */
    public record Grads(double[] dx, double[] dw, double[] db) {
    }

    public static Grads backward(double[] x, double[] w, double[] dy, int n, int in, int out) {
        double[] dx = new double[n * in];
        double[] dw = new double[out * in];
        double[] db = new double[out];
        for (int r = 0; r < n; r++) {
            for (int o = 0; o < out; o++) {
                double g = dy[r * out + o];
                db[o] += g;
                for (int i = 0; i < in; i++) {
                    dx[r * in + i] += g * w[o * in + i];
                    dw[o * in + i] += g * x[r * in + i];
                }
            }
        }
        return new Grads(dx, dw, db);
    }
}
