package dev.aorta.model.reference;

import java.util.List;

/**
 * AdamW as torch.optim.AdamW (decoupled weight decay, bias correction, eps outside the square root) and the
 * global gradient-norm clip of torch.nn.utils.clip_grad_norm_.
 */
public final class RefOptim {
    private RefOptim() {
    }

    /**
     * One step, in place on {@code param}, {@code m} and {@code v}; {@code t} counts steps from 1.
     * p ← p·(1 - lr·wd); m ← β1·m + (1-β1)·g; v ← β2·v + (1-β2)·g²;
     * p ← p - lr·(m/(1-β1ᵗ)) / (sqrt(v/(1-β2ᵗ)) + eps).
     */
    public static void adamw(double[] param, double[] grad, double[] m, double[] v, int t, double lr, double beta1,
                             double beta2, double eps, double weightDecay) {
        double bc1 = 1 - Math.pow(beta1, t);
        double bc2 = 1 - Math.pow(beta2, t);
        for (int i = 0; i < param.length; i++) {
            double g = grad[i];
            param[i] *= 1 - lr * weightDecay;
            m[i] = beta1 * m[i] + (1 - beta1) * g;
            v[i] = beta2 * v[i] + (1 - beta2) * g * g;
            param[i] -= lr * (m[i] / bc1) / (Math.sqrt(v[i] / bc2) + eps);
        }
    }

    /** The L2 norm of all gradients together. */
    public static double globalNorm(List<double[]> grads) {
        double s = 0;
        for (double[] g : grads) {
            for (double x : g) {
                s += x * x;
            }
        }
        return Math.sqrt(s);
    }

    /** The factor clip_grad_norm_ multiplies every gradient by: min(1, maxNorm/(norm + 1e-6)). */
    public static double clipCoefficient(double norm, double maxNorm) {
        return Math.min(1, maxNorm / (norm + 1e-6));
    }
}
