package dev.aorta.model.reference;

/**
 * Scaled dot-product attention on q, k, v [n, t, d] (n = batch·heads), scale 1/√d, optionally causal (key j
 * visible to query i only when j ≤ i), as torch.nn.functional.scaled_dot_product_attention.
 */
public final class RefAttention {
    private RefAttention() {
    }

    public static double[] forward(double[] q, double[] k, double[] v, int n, int t, int d, boolean causal) {
        double[] o = new double[n * t * d];
        for (int b = 0; b < n; b++) {
            for (int i = 0; i < t; i++) {
                double[] p = probabilities(q, k, b, i, t, d, causal);
                for (int j = 0; j < t; j++) {
                    for (int c = 0; c < d; c++) {
                        o[(b * t + i) * d + c] += p[j] * v[(b * t + j) * d + c];
                    }
                }
            }
        }
        return o;
    }

    public record Grads(double[] dq, double[] dk, double[] dv) {
    }

    /** With P the probabilities: dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P∘(dP - rowsum(dP∘P)), dQ = s·dS·K, dK = s·dSᵀ·Q. */
    public static Grads backward(double[] q, double[] k, double[] v, double[] dout, int n, int t, int d,
                                 boolean causal) {
        double scale = 1 / Math.sqrt(d);
        double[] dq = new double[n * t * d];
        double[] dk = new double[n * t * d];
        double[] dv = new double[n * t * d];
        for (int b = 0; b < n; b++) {
            for (int i = 0; i < t; i++) {
                double[] p = probabilities(q, k, b, i, t, d, causal);
                double[] dp = new double[t];
                double rowDot = 0;
                for (int j = 0; j < t; j++) {
                    for (int c = 0; c < d; c++) {
                        dp[j] += dout[(b * t + i) * d + c] * v[(b * t + j) * d + c];
                        dv[(b * t + j) * d + c] += p[j] * dout[(b * t + i) * d + c];
                    }
                    rowDot += dp[j] * p[j];
                }
                for (int j = 0; j < t; j++) {
                    double ds = p[j] * (dp[j] - rowDot);
                    for (int c = 0; c < d; c++) {
                        dq[(b * t + i) * d + c] += scale * ds * k[(b * t + j) * d + c];
                        dk[(b * t + j) * d + c] += scale * ds * q[(b * t + i) * d + c];
                    }
                }
            }
        }
        return new Grads(dq, dk, dv);
    }

    /** Row i's softmax over the visible keys (zero for masked ones). */
    private static double[] probabilities(double[] q, double[] k, int b, int i, int t, int d, boolean causal) {
        double scale = 1 / Math.sqrt(d);
        double[] s = new double[t];
        double max = Double.NEGATIVE_INFINITY;
        int visible = causal ? i + 1 : t;
        for (int j = 0; j < visible; j++) {
            for (int c = 0; c < d; c++) {
                s[j] += q[(b * t + i) * d + c] * k[(b * t + j) * d + c];
            }
            s[j] *= scale;
            max = Math.max(max, s[j]);
        }
        double sum = 0;
        for (int j = 0; j < visible; j++) {
            s[j] = Math.exp(s[j] - max);
            sum += s[j];
        }
        for (int j = 0; j < t; j++) {
            s[j] = j < visible ? s[j] / sum : 0;
        }
        return s;
    }
}
