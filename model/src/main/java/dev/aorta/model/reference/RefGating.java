package dev.aorta.model.reference;

/**
 * Top-k gating with renormalisation (mixture-of-experts routing) on logits [n, e]: per row, the k experts of
 * largest softmax probability and their probabilities divided by the sum of the k, i.e. gates = softmax over
 * the k selected logits only. Ties go to the lower expert index (torch.topk leaves their order unspecified).
 */
public final class RefGating {
    private RefGating() {
    }

    public record Routing(int[] experts, double[] gates) {
    }

    public static Routing topK(double[] logits, int n, int e, int k) {
        if (k < 1 || k > e) {
            throw new IllegalArgumentException("top-k gating: k = " + k + " with " + e + " experts");
        }
        int[] experts = new int[n * k];
        double[] gates = new double[n * k];
        for (int r = 0; r < n; r++) {
            boolean[] taken = new boolean[e];
            for (int j = 0; j < k; j++) {
                int best = -1;
                for (int i = 0; i < e; i++) {
                    if (!taken[i] && (best < 0 || logits[r * e + i] > logits[r * e + best])) {
                        best = i;
                    }
                }
                taken[best] = true;
                experts[r * k + j] = best;
            }
            double max = logits[r * e + experts[r * k]];
            double sum = 0;
            for (int j = 0; j < k; j++) {
                gates[r * k + j] = Math.exp(logits[r * e + experts[r * k + j]] - max);
                sum += gates[r * k + j];
            }
            for (int j = 0; j < k; j++) {
                gates[r * k + j] /= sum;
            }
        }
        return new Routing(experts, gates);
    }

    /** dlogits from dgates [n, k]: the softmax backward over the selected logits, zero for the others. */
    public static double[] topKBackward(Routing routing, double[] dgates, int n, int e, int k) {
        double[] dx = new double[n * e];
        for (int r = 0; r < n; r++) {
            double dot = 0;
            for (int j = 0; j < k; j++) {
                dot += dgates[r * k + j] * routing.gates()[r * k + j];
            }
            for (int j = 0; j < k; j++) {
                double g = routing.gates()[r * k + j];
                dx[r * e + routing.experts()[r * k + j]] = g * (dgates[r * k + j] - dot);
            }
        }
        return dx;
    }
}
