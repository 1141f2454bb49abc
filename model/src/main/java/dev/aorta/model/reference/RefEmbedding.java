package dev.aorta.model.reference;

/**
 * Embedding lookup with mean pooling, as torch.nn.EmbeddingBag(mode="mean") on ids [b, l]:
 * out[s] = (1/l)·Σ_j table[ids[s, j]], table [v, d], out [b, d].
 */
public final class RefEmbedding {
    private RefEmbedding() {
    }

    public static double[] forward(double[] table, int[] ids, int b, int l, int d) {
        double[] out = new double[b * d];
        for (int s = 0; s < b; s++) {
            for (int j = 0; j < l; j++) {
                int row = ids[s * l + j];
                for (int k = 0; k < d; k++) {
                    out[s * d + k] += table[row * d + k] / l;
                }
            }
        }
        return out;
    }

    /** The table's gradient: each id's row receives dout/l once per occurrence (a scatter-add). */
    public static double[] backward(double[] dout, int[] ids, int b, int l, int d, int v) {
        double[] dtable = new double[v * d];
        for (int s = 0; s < b; s++) {
            for (int j = 0; j < l; j++) {
                int row = ids[s * l + j];
                for (int k = 0; k < d; k++) {
                    dtable[row * d + k] += dout[s * d + k] / l;
                }
            }
        }
        return dtable;
    }
}
