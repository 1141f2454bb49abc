package dev.aorta.model.reference;

/**
 * Convolution and pooling on NCHW tensors in float64: torch.nn.functional.conv2d(x, w, b, stride, padding)
 * with x [n, ci, h, w], w [co, ci, kh, kw], b [co]; max_pool2d(x, k, stride, padding) (padding is -inf; the
 * first maximum of a window, in row-major window order, takes the gradient); and the global average pool,
 * adaptive_avg_pool2d(x, 1), [n, c, h, w] → [n, c].
 */
public final class RefConv {
    private RefConv() {
    }

    /** The spatial output size of a window of {@code k} at {@code stride} over {@code in} padded by {@code pad}. */
    public static int outSize(int in, int k, int stride, int pad) {
        return (in + 2 * pad - k) / stride + 1;
    }

    public record Shape(int n, int ci, int h, int w, int co, int kh, int kw, int stride, int pad) {
        public int oh() {
            return outSize(h, kh, stride, pad);
        }

        public int ow() {
            return outSize(w, kw, stride, pad);
        }
    }

    public static double[] conv2d(double[] x, double[] w, double[] b, Shape s) {
        int oh = s.oh();
        int ow = s.ow();
        double[] y = new double[s.n() * s.co() * oh * ow];
        for (int n = 0; n < s.n(); n++) {
            for (int co = 0; co < s.co(); co++) {
                for (int i = 0; i < oh; i++) {
                    for (int j = 0; j < ow; j++) {
                        double acc = b == null ? 0 : b[co];
                        for (int ci = 0; ci < s.ci(); ci++) {
                            for (int p = 0; p < s.kh(); p++) {
                                for (int q = 0; q < s.kw(); q++) {
                                    int ih = i * s.stride() - s.pad() + p;
                                    int iw = j * s.stride() - s.pad() + q;
                                    if (ih >= 0 && ih < s.h() && iw >= 0 && iw < s.w()) {
                                        acc += x[((n * s.ci() + ci) * s.h() + ih) * s.w() + iw]
                                                * w[((co * s.ci() + ci) * s.kh() + p) * s.kw() + q];
                                    }
                                }
                            }
                        }
                        y[((n * s.co() + co) * oh + i) * ow + j] = acc;
                    }
                }
            }
        }
        return y;
    }

    public record ConvGrads(double[] dx, double[] dw, double[] db) {
    }

    public static ConvGrads conv2dBackward(double[] x, double[] w, double[] dy, Shape s) {
        int oh = s.oh();
        int ow = s.ow();
        double[] dx = new double[x.length];
        double[] dw = new double[w.length];
        double[] db = new double[s.co()];
        for (int n = 0; n < s.n(); n++) {
            for (int co = 0; co < s.co(); co++) {
                for (int i = 0; i < oh; i++) {
                    for (int j = 0; j < ow; j++) {
                        double g = dy[((n * s.co() + co) * oh + i) * ow + j];
                        db[co] += g;
                        for (int ci = 0; ci < s.ci(); ci++) {
                            for (int p = 0; p < s.kh(); p++) {
                                for (int q = 0; q < s.kw(); q++) {
                                    int ih = i * s.stride() - s.pad() + p;
                                    int iw = j * s.stride() - s.pad() + q;
                                    if (ih >= 0 && ih < s.h() && iw >= 0 && iw < s.w()) {
                                        int xi = ((n * s.ci() + ci) * s.h() + ih) * s.w() + iw;
                                        int wi = ((co * s.ci() + ci) * s.kh() + p) * s.kw() + q;
                                        dx[xi] += g * w[wi];
                                        dw[wi] += g * x[xi];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return new ConvGrads(dx, dw, db);
    }

    /** max_pool2d over [n·c planes of h×w]; {@code argmax} (may be null) receives each output's input index. */
    public static double[] maxPool(double[] x, int planes, int h, int w, int k, int stride, int pad, int[] argmax) {
        int oh = outSize(h, k, stride, pad);
        int ow = outSize(w, k, stride, pad);
        double[] y = new double[planes * oh * ow];
        for (int c = 0; c < planes; c++) {
            for (int i = 0; i < oh; i++) {
                for (int j = 0; j < ow; j++) {
                    double best = Double.NEGATIVE_INFINITY;
                    int at = -1;
                    for (int p = 0; p < k; p++) {
                        for (int q = 0; q < k; q++) {
                            int ih = i * stride - pad + p;
                            int iw = j * stride - pad + q;
                            if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
                                double v = x[(c * h + ih) * w + iw];
                                if (at < 0 || v > best) {
                                    best = v;
                                    at = (c * h + ih) * w + iw;
                                }
                            }
                        }
                    }
                    int o = (c * oh + i) * ow + j;
                    y[o] = best;
                    if (argmax != null) {
                        argmax[o] = at;
                    }
                }
            }
        }
        return y;
    }

    /** dx: each output's gradient added at its window's maximum. */
    public static double[] maxPoolBackward(int[] argmax, double[] dy, int inputSize) {
        double[] dx = new double[inputSize];
        for (int o = 0; o < dy.length; o++) {
            dx[argmax[o]] += dy[o];
        }
        return dx;
    }

    public static double[] globalAvgPool(double[] x, int planes, int hw) {
        double[] y = new double[planes];
        for (int c = 0; c < planes; c++) {
            double s = 0;
            for (int i = 0; i < hw; i++) {
                s += x[c * hw + i];
            }
            y[c] = s / hw;
        }
        return y;
    }

    public static double[] globalAvgPoolBackward(double[] dy, int planes, int hw) {
        double[] dx = new double[planes * hw];
        for (int c = 0; c < planes; c++) {
            for (int i = 0; i < hw; i++) {
                dx[c * hw + i] = dy[c] / hw;
            }
        }
        return dx;
    }
}
