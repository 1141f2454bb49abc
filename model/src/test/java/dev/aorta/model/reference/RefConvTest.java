package dev.aorta.model.reference;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The convolution and pooling references against finite differences and a hand-worked case. */
class RefConvTest {

    @Test
    void conv2dGradientsWithStrideAndPadding() {
        Random rnd = new Random(3);
        RefConv.Shape s = new RefConv.Shape(2, 3, 5, 6, 4, 3, 2, 2, 1);
        double[] x = FiniteDifference.random(rnd, 2 * 3 * 5 * 6);
        double[] w = FiniteDifference.random(rnd, 4 * 3 * 3 * 2);
        double[] b = FiniteDifference.random(rnd, 4);
        double[] r = FiniteDifference.upstream(rnd, 2 * 4 * s.oh() * s.ow());
        RefConv.ConvGrads g = RefConv.conv2dBackward(x, w, r, s);
        FiniteDifference.check("conv2d dx", xx -> RefConv.conv2d(xx, w, b, s), x, r, g.dx());
        FiniteDifference.check("conv2d dw", ww -> RefConv.conv2d(x, ww, b, s), w, r, g.dw());
        FiniteDifference.check("conv2d db", bb -> RefConv.conv2d(x, w, bb, s), b, r, g.db());
    }

    @Test
    void conv2dOfAOneByOneKernelIsAChannelMix() {
        // x: 1 image, 2 channels of 1x2; w: 1 output channel = 2·c0 + 3·c1, bias 1
        double[] y = RefConv.conv2d(new double[] {1, 2, 10, 20}, new double[] {2, 3}, new double[] {1},
                new RefConv.Shape(1, 2, 1, 2, 1, 1, 1, 1, 0));
        assertThat(y).containsExactly(1 + 2 + 30, 1 + 4 + 60);
    }

    @Test
    void maxPoolRoutesTheGradientToEachWindowsMaximum() {
        Random rnd = new Random(5);
        int planes = 3;
        int h = 5;
        int w = 7;
        double[] x = FiniteDifference.random(rnd, planes * h * w);
        int oh = RefConv.outSize(h, 3, 2, 1);
        int ow = RefConv.outSize(w, 3, 2, 1);
        int[] arg = new int[planes * oh * ow];
        RefConv.maxPool(x, planes, h, w, 3, 2, 1, arg);
        double[] r = FiniteDifference.upstream(rnd, arg.length);
        FiniteDifference.check("max pool dx", xx -> RefConv.maxPool(xx, planes, h, w, 3, 2, 1, null), x, r,
                RefConv.maxPoolBackward(arg, r, x.length));
    }

    @Test
    void globalAveragePool() {
        Random rnd = new Random(7);
        double[] x = FiniteDifference.random(rnd, 4 * 6);
        double[] r = FiniteDifference.upstream(rnd, 4);
        FiniteDifference.check("global avg pool dx", xx -> RefConv.globalAvgPool(xx, 4, 6), x, r,
                RefConv.globalAvgPoolBackward(r, 4, 6));
        assertThat(RefConv.globalAvgPool(new double[] {1, 2, 3, 6}, 1, 4)).containsExactly(3.0);
    }
}
