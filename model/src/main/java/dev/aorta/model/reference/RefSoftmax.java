package dev.aorta.model.reference;

/** Softmax over the last dimension of x [n, c]. */
public final class RefSoftmax {
    private RefSoftmax() {
    }

    public static double[] forward(double[] x, int n, int c) {
        double[] y = new double[n * c];
        for (int r = 0; r < n; r++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < c; i++) {
                max = Math.max(max, x[r * c + i]);
            }
            double sum = 0;
            for (int i = 0; i < c; i++) {
                y[r * c + i] = Math.exp(x[r * c + i] - max);
                sum += y[r * c + i];
            }
            for (int i = 0; i < c; i++) {
                y[r * c + i] /= sum;
            }
        }
        return y;
    }

    /** From the output y: dx = y·(dy - Σ dy·y) per row. */
    public static double[] backward(double[] y, double[] dy, int n, int c) {
        double[] dx = new double[n * c];
        for (int r = 0; r < n; r++) {
            double dot = 0;
            for (int i = 0; i < c; i++) {
                dot += dy[r * c + i] * y[r * c + i];
            }
            for (int i = 0; i < c; i++) {
                dx[r * c + i] = y[r * c + i] * (dy[r * c + i] - dot);
            }
        }
        return dx;
    }
}
