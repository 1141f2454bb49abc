package dev.aorta.model.reference;

/**
 * Losses, each averaged as PyTorch's reduction="mean" does. Weighted binary cross-entropy on logits, as torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=p,
 * reduction="mean") on x, y [n, c] with w and p of shape [c] (broadcast over rows) or null:
 * ℓ = w·(p·y·softplus(-x) + (1 - y)·softplus(x)), averaged over all n·c elements.
 */
public final class RefLoss {
    private RefLoss() {
    }

    public static double bceWithLogits(double[] x, double[] y, double[] w, double[] p, int n, int c) {
        double sum = 0;
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < c; i++) {
                double xi = x[r * c + i];
                double yi = y[r * c + i];
                double pw = p == null ? 1 : p[i];
                double l = pw * yi * softplus(-xi) + (1 - yi) * softplus(xi);
                sum += (w == null ? 1 : w[i]) * l;
            }
        }
        return sum / ((double) n * c);
    }

    /** dℓ/dx = w·(p·y·(σ(x) - 1) + (1 - y)·σ(x)) / (n·c), times the upstream gradient {@code dloss}. */
    public static double[] bceWithLogitsBackward(double[] x, double[] y, double[] w, double[] p, int n, int c,
                                                 double dloss) {
        double[] dx = new double[n * c];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < c; i++) {
                double s = sigmoid(x[r * c + i]);
                double yi = y[r * c + i];
                double pw = p == null ? 1 : p[i];
                dx[r * c + i] = dloss * (w == null ? 1 : w[i]) * (pw * yi * (s - 1) + (1 - yi) * s) / ((double) n * c);
            }
        }
        return dx;
    }

    /**
     * torch.nn.functional.cross_entropy(x [n, c], target [n], reduction="mean", ignore_index): the mean over the
     * rows whose target is not {@code ignoreIndex} of -log softmax(x)[target].
     */
    public static double crossEntropy(double[] x, int[] target, int n, int c, int ignoreIndex) {
        double sum = 0;
        int counted = 0;
        for (int r = 0; r < n; r++) {
            if (target[r] == ignoreIndex) {
                continue;
            }
            sum += logSumExp(x, r, c) - x[r * c + target[r]];
            counted++;
        }
        return sum / counted;
    }

    /** dx = dloss·(softmax(x) - onehot(target)) / counted rows; zero on ignored rows. */
    public static double[] crossEntropyBackward(double[] x, int[] target, int n, int c, int ignoreIndex,
                                                double dloss) {
        int counted = 0;
        for (int r = 0; r < n; r++) {
            counted += target[r] == ignoreIndex ? 0 : 1;
        }
        double[] dx = new double[n * c];
        for (int r = 0; r < n; r++) {
            if (target[r] == ignoreIndex) {
                continue;
            }
            double lse = logSumExp(x, r, c);
            for (int i = 0; i < c; i++) {
                double p = Math.exp(x[r * c + i] - lse);
                dx[r * c + i] = dloss * (p - (i == target[r] ? 1 : 0)) / counted;
            }
        }
        return dx;
    }

    private static double logSumExp(double[] x, int r, int c) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < c; i++) {
            max = Math.max(max, x[r * c + i]);
        }
        double s = 0;
        for (int i = 0; i < c; i++) {
            s += Math.exp(x[r * c + i] - max);
        }
        return max + Math.log(s);
    }

    /** log(1 + e^x) without overflow. */
    static double softplus(double x) {
        return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
    }

    static double sigmoid(double x) {
        return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
    }
}
