package dev.aorta.model.ops;

import dev.aorta.model.reference.RefConv;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The column matrix's index mapping (what conv.cu's col_source computes) turns convolution into GEMMs: on the
 * host, in float64, the forward GEMM, the weight gradient GEMM and the col2im of the input gradient's columns
 * must equal the direct float64 reference, for odd sizes, strides, padding and non-square kernels.
 */
class Im2colTest {

    @ParameterizedTest(name = "n {0}, ci {1}, {2}x{3}, co {4}, kernel {5}x{6}, stride {7}, pad {8}")
    @CsvSource({"1, 1, 1, 1, 1, 1, 1, 1, 0", "2, 3, 5, 6, 4, 3, 2, 2, 1", "2, 3, 7, 9, 5, 3, 3, 1, 1",
            "1, 2, 11, 5, 3, 5, 1, 3, 2", "3, 4, 8, 8, 2, 2, 2, 2, 0", "1, 3, 4, 4, 2, 3, 3, 1, 2"})
    void convolutionAsGemmsOverTheColumnsEqualsTheReference(int n, int ci, int h, int w, int co, int kh, int kw,
                                                          int stride, int pad) {
        RefConv.Shape s = new RefConv.Shape(n, ci, h, w, co, kh, kw, stride, pad);
        Im2col g = new Im2col(ci, h, w, kh, kw, stride, pad);
        assertThat(g.oh()).isEqualTo(s.oh());
        assertThat(g.ow()).isEqualTo(s.ow());
        SplittableRandom r = new SplittableRandom(7 + n * 31L + h);
        double[] x = random(r, n * ci * h * w);
        double[] wt = random(r, co * g.k());
        double[] b = random(r, co);
        double[] dy = random(r, n * co * g.p());
        int plane = ci * h * w;

        double[] y = new double[n * co * g.p()];
        double[] dw = new double[co * g.k()];
        double[] dx = new double[x.length];
        for (int img = 0; img < n; img++) {
            double[] col = columns(g, x, img * plane);
            for (int c = 0; c < co; c++) {
                for (int p = 0; p < g.p(); p++) {
                    double acc = b[c];
                    double grad = dy[(img * co + c) * g.p() + p];
                    for (int k = 0; k < g.k(); k++) {
                        acc += wt[c * g.k() + k] * col[k * g.p() + p];
                        dw[c * g.k() + k] += grad * col[k * g.p() + p];
                    }
                    y[(img * co + c) * g.p() + p] = acc;
                }
            }
            // the input gradient's columns Wᵀ·dy_img, then col2im: each column element back to the x it was read from
            for (int k = 0; k < g.k(); k++) {
                for (int p = 0; p < g.p(); p++) {
                    long src = g.source(k, p);
                    if (src >= 0) {
                        double acc = 0;
                        for (int c = 0; c < co; c++) {
                            acc += wt[c * g.k() + k] * dy[(img * co + c) * g.p() + p];
                        }
                        dx[img * plane + (int) src] += acc;
                    }
                }
            }
        }
        RefConv.ConvGrads want = RefConv.conv2dBackward(x, wt, dy, s);
        assertClose("y", y, RefConv.conv2d(x, wt, b, s));
        assertClose("dw", dw, want.dw());
        assertClose("dx", dx, want.dx());
    }

    @Test
    void paddingReadsZeroAndTheTopLeftWindowStartsAtMinusPad() {
        Im2col g = new Im2col(2, 4, 5, 3, 3, 1, 1);
        // k = 0 is channel 0, tap (0, 0): at output (0, 0) it reads (-1, -1), the padding
        assertThat(g.source(0, 0)).isEqualTo(-1);
        // tap (1, 1) of channel 1 at output (0, 0) is x[1][0][0]
        assertThat(g.source(9 + 4, 0)).isEqualTo(20);
        // tap (2, 2) of channel 0 at output (3, 4): (4, 5) is outside the 4x5 image
        assertThat(g.source(8, 3 * 5 + 4)).isEqualTo(-1);
    }

    @Test
    void passesTakeAsManyImagesAsFitTheScratchButAlwaysOne() {
        // SimpleConvNet's second convolution: 64 channels, 112 x 112, 3x3 padding 1: K = 576, P = 12544
        Im2col g = new Im2col(64, 112, 112, 3, 3, 1, 1);
        assertThat(g.elementsPerImage()).isEqualTo(576L * 12544);
        // 64 Mi elements hold 9 images; 32 images take 4 passes, evenly 8 each
        assertThat(g.imagesPerPass(32, Conv2d.MAX_COLUMN_ELEMENTS)).isEqualTo(8);
        assertThat(g.imagesPerPass(10, Conv2d.MAX_COLUMN_ELEMENTS)).isEqualTo(5);
        assertThat(g.imagesPerPass(4, Conv2d.MAX_COLUMN_ELEMENTS)).isEqualTo(4);
        assertThat(g.imagesPerPass(32, 1000)).isEqualTo(1);
    }

    private static double[] columns(Im2col g, double[] x, int offset) {
        double[] col = new double[(int) g.elementsPerImage()];
        for (int k = 0; k < g.k(); k++) {
            for (int p = 0; p < g.p(); p++) {
                long src = g.source(k, p);
                col[k * g.p() + p] = src < 0 ? 0 : x[offset + (int) src];
            }
        }
        return col;
    }

    private static double[] random(SplittableRandom r, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextDouble(-1, 1);
        }
        return v;
    }

    private static void assertClose(String what, double[] got, double[] want) {
        assertThat(got).as(what).hasSameSizeAs(want);
        for (int i = 0; i < want.length; i++) {
            assertThat(got[i]).as(what + "[" + i + "]").isCloseTo(want[i], within(1e-12));
        }
    }
}
