package dev.aorta.workloads.model;

import dev.aorta.model.reference.RefAttention;
import dev.aorta.model.reference.RefLinear;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Megatron's head split, in float64: the ranks' out-projections summed (the forward all-reduce) give the unsplit
 * layer's output, and their partial input gradients summed (the backward all-reduce) give its input gradient.
 */
class HeadSplitTest {
    private static final int DIM = 16;
    private static final int HEADS = 4;
    private static final int T = 5;

    private final float[] w = ModelWorkload.random(3 * DIM * DIM, 1);
    private final float[] b = ModelWorkload.random(3 * DIM, 2);
    private final float[] wo = ModelWorkload.random(DIM * DIM, 3);
    private final float[] bo = ModelWorkload.random(DIM, 4);
    private final double[] x = Reference.doubles(ModelWorkload.random(T * DIM, 5));
    private final double[] dOut = Reference.doubles(ModelWorkload.random(T * DIM, 6));

    /** Output and input gradient of a multi-head attention layer with {@code heads} heads of width/heads features. */
    private static double[][] layer(double[] x, double[] dOut, float[] w, float[] b, float[] wo, float[] bo,
                                    int heads, int width) {
        int d = DIM / HEADS;
        double[] qkv = RefLinear.forward(x, Reference.doubles(w), Reference.doubles(b), T, DIM, 3 * width);
        double[][] qkvHeads = new double[3][heads * T * d];
        for (int part = 0; part < 3; part++) {
            for (int h = 0; h < heads; h++) {
                for (int r = 0; r < T; r++) {
                    System.arraycopy(qkv, r * 3 * width + part * width + h * d, qkvHeads[part], (h * T + r) * d, d);
                }
            }
        }
        double[] att = RefAttention.forward(qkvHeads[0], qkvHeads[1], qkvHeads[2], heads, T, d, false);
        double[] merged = toRows(att, heads, width, d);
        double[] out = RefLinear.forward(merged, Reference.doubles(wo), Reference.doubles(bo), T, width, DIM);
        double[] dMerged = RefLinear.backward(merged, Reference.doubles(wo), dOut, T, width, DIM).dx();
        double[] dAtt = new double[heads * T * d];
        for (int h = 0; h < heads; h++) {
            for (int r = 0; r < T; r++) {
                System.arraycopy(dMerged, r * width + h * d, dAtt, (h * T + r) * d, d);
            }
        }
        RefAttention.Grads g = RefAttention.backward(qkvHeads[0], qkvHeads[1], qkvHeads[2], dAtt, heads, T, d, false);
        double[] dQkv = new double[T * 3 * width];
        double[][] parts = {toRows(g.dq(), heads, width, d), toRows(g.dk(), heads, width, d), toRows(g.dv(), heads, width, d)};
        for (int part = 0; part < 3; part++) {
            for (int r = 0; r < T; r++) {
                System.arraycopy(parts[part], r * width, dQkv, r * 3 * width + part * width, width);
            }
        }
        double[] dx = RefLinear.backward(x, Reference.doubles(w), dQkv, T, DIM, 3 * width).dx();
        return new double[][] {out, dx};
    }

    private static double[] toRows(double[] byHead, int heads, int width, int d) {
        double[] rows = new double[T * width];
        for (int h = 0; h < heads; h++) {
            for (int r = 0; r < T; r++) {
                System.arraycopy(byHead, (h * T + r) * d, rows, r * width + h * d, d);
            }
        }
        return rows;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void theRanksPartialOutputsAndInputGradientsSumToTheUnsplitLayers(int ranks) {
        double[][] whole = layer(x, dOut, w, b, wo, bo, HEADS, DIM);
        HeadSplit split = new HeadSplit(DIM, HEADS, ranks);
        double[] out = new double[T * DIM];
        double[] dx = new double[T * DIM];
        for (int r = 0; r < ranks; r++) {
            double[][] mine = layer(x, dOut, split.inProjWeight(w, r), split.inProjBias(b, r),
                    split.outProjWeight(wo, r), split.outProjBias(bo, r), split.localHeads(), split.localWidth());
            for (int i = 0; i < out.length; i++) {
                out[i] += mine[0][i];
                dx[i] += mine[1][i];
            }
        }
        for (int i = 0; i < out.length; i++) {
            assertThat(out[i]).as("output %d", i).isCloseTo(whole[0][i], within(1e-12));
            assertThat(dx[i]).as("input gradient %d", i).isCloseTo(whole[1][i], within(1e-12));
        }
    }

    @Test
    void aRankHoldsWholeHeadsOrTheSplitIsRefused() {
        assertThat(new HeadSplit(512, 8, 4).localHeads()).isEqualTo(2);
        assertThat(new HeadSplit(512, 8, 4).localWidth()).isEqualTo(128);
        assertThatThrownBy(() -> new HeadSplit(512, 8, 3))
                .hasMessage("8 heads of 512 features do not split into 3 tensor-parallel ranks of whole heads");
    }
}
