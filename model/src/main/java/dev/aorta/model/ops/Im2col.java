package dev.aorta.model.ops;

/**
 * The column matrix of a 2-D convolution over one image [ci, h, w] with a kh×kw kernel, stride and zero padding:
 * col[k][p] with k = (c, r, q) over the input channel and the kernel taps and p = (oh, ow) over the output
 * positions, so that the convolution is the GEMM y[co][p] = Σ_k W[co][k]·col[k][p] with W [co, ci·kh·kw]
 * (torch's weight layout flattened). conv.cu's {@code col_source} computes the same mapping on the device; this is
 * its host form, which the tests hold against the float64 reference, and the sizing of {@link Conv2d}'s scratch.
 */
public record Im2col(int ci, int h, int w, int kh, int kw, int stride, int pad) {

    /** Output rows: (h + 2·pad − kh) / stride + 1. */
    public int oh() {
        return (h + 2 * pad - kh) / stride + 1;
    }

    /** Output columns: (w + 2·pad − kw) / stride + 1. */
    public int ow() {
        return (w + 2 * pad - kw) / stride + 1;
    }

    /** Rows of the column matrix (the GEMM's reduction): ci·kh·kw. */
    public int k() {
        return ci * kh * kw;
    }

    /** Columns of the column matrix (output positions): oh·ow. */
    public int p() {
        return oh() * ow();
    }

    /** Elements of one image's column matrix. */
    public long elementsPerImage() {
        return (long) k() * p();
    }

    /**
     * The offset in one image [ci][h][w] that col[k][p] reads, or −1 where the window hangs over the padding
     * (there the column holds 0).
     */
    public long source(int k, int p) {
        int q = k % kw;
        int r = k / kw % kh;
        int c = k / (kw * kh);
        int ih = p / ow() * stride - pad + r;
        int iw = p % ow() * stride - pad + q;
        if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
            return -1;
        }
        return ((long) c * h + ih) * w + iw;
    }

    /**
     * How many of {@code n} images one pass takes so that their column matrices fit {@code maxElements} (at least
     * one image, whatever its size: a single image's matrix is the least the GEMM needs), spread evenly over the
     * fewest passes (32 images at 9 per pass go as 8, 8, 8, 8, not 9, 9, 9, 5).
     */
    public int imagesPerPass(int n, long maxElements) {
        int most = (int) Math.max(1, Math.min(n, maxElements / elementsPerImage()));
        int passes = (n + most - 1) / most;
        return (n + passes - 1) / passes;
    }
}
