package dev.aorta.trainer.data;

import dev.aorta.trainer.config.DatasetConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SyntheticRankingDatasetTest {
    private static DatasetConfig config(boolean learnable) {
        return new DatasetConfig(1000, 16, 32, 8, 500, 4, 42, learnable);
    }

    private static Sample sample(SyntheticRankingDataset ds, long i) {
        Sample s = new Sample(ds.shape());
        ds.fill(i, s);
        return s;
    }

    @Test
    void sampleDependsOnSeedPlusIndexAlone() {
        SyntheticRankingDataset ds = new SyntheticRankingDataset(config(false));
        Sample a = sample(ds, 7);
        sample(ds, 3);
        Sample again = sample(new SyntheticRankingDataset(config(false)), 7);
        assertThat(again.dense()).containsExactly(a.dense());
        assertThat(again.categorical()).containsExactly(a.categorical());
        assertThat(again.target()).containsExactly(a.target());
        // seed 41, index 8 is seed + index 49 as well: the same sample
        SyntheticRankingDataset shifted = new SyntheticRankingDataset(new DatasetConfig(1000, 16, 32, 8, 500, 4, 41,
                false));
        assertThat(sample(shifted, 8).dense()).containsExactly(a.dense());
        assertThat(sample(ds, 8).dense()).isNotEqualTo(a.dense());
    }

    @Test
    void valuesHaveTheSpecifiedDistributions() {
        SyntheticRankingDataset ds = new SyntheticRankingDataset(config(false));
        double sum = 0;
        double sq = 0;
        long n = 0;
        double targetSum = 0;
        double importanceSum = 0;
        long positions = 0;
        int[] idCounts = new int[500];
        for (int i = 0; i < 200; i++) {
            Sample s = sample(ds, i);
            for (float v : s.dense()) {
                sum += v;
                sq += (double) v * v;
                n++;
            }
            for (int id : s.categorical()) {
                assertThat(id).isBetween(0, 499);
                idCounts[id]++;
            }
            for (int t = 0; t < s.target().length; t++) {
                assertThat(s.target()[t]).isBetween(0f, 1f);
                assertThat(s.importance()[t]).isBetween(0f, 1f);
                targetSum += s.target()[t];
                importanceSum += s.importance()[t];
                positions++;
            }
        }
        assertThat(sum / n).isCloseTo(0, within(0.01));
        assertThat(sq / n).isCloseTo(1, within(0.01));
        assertThat(targetSum / positions).isCloseTo(0.5, within(0.03));
        assertThat(importanceSum / positions).isCloseTo(0.5, within(0.03));
        // 25 600 ids over 500 values: every value drawn, none far above its expected 51
        assertThat(java.util.Arrays.stream(idCounts).min().orElseThrow()).isGreaterThanOrEqualTo(15);
        assertThat(java.util.Arrays.stream(idCounts).max().orElseThrow()).isLessThanOrEqualTo(100);
    }

    @Test
    void learnableTargetIsSigmoidOfOneLinearFunctionOfDenseMeansAndFirstIdForEverySample() {
        SyntheticRankingDataset ds = new SyntheticRankingDataset(config(true));
        int d = ds.shape().denseDim();
        int f = ds.shape().denseFeatures();
        int s = ds.shape().sparseFeatures();
        // least squares: logit(target) - id term = sum_k c_k * mean_f dense[t, f, k], over positions of 300 samples
        double[][] ata = new double[d][d];
        double[] atb = new double[d];
        List<double[]> rows = new ArrayList<>();
        List<Double> rhs = new ArrayList<>();
        long decided = 0;
        long total = 0;
        for (int i = 0; i < 300; i++) {
            Sample x = sample(ds, i);
            for (int t = 0; t < ds.shape().sequenceLength(); t++) {
                double y = x.target()[t];
                total++;
                decided += y < 0.1 || y > 0.9 ? 1 : 0;
                if (y < 0.02 || y > 0.98) {
                    continue; // float32 keeps too few digits of the logit there
                }
                double[] m = new double[d];
                for (int k = 0; k < d; k++) {
                    for (int j = 0; j < f; j++) {
                        m[k] += x.dense()[(t * f + j) * d + k] / (double) f;
                    }
                }
                double idTerm = 2.0 * x.categorical()[t * s] / (500 - 1) - 1;
                double b = Math.log(y / (1 - y)) - idTerm;
                for (int a = 0; a < d; a++) {
                    atb[a] += m[a] * b;
                    for (int c = 0; c < d; c++) {
                        ata[a][c] += m[a] * m[c];
                    }
                }
                rows.add(m);
                rhs.add(b);
            }
        }
        double[] coef = solve(ata, atb);
        double worst = 0;
        for (int r = 0; r < rows.size(); r++) {
            double fit = 0;
            for (int k = 0; k < d; k++) {
                fit += coef[k] * rows.get(r)[k];
            }
            worst = Math.max(worst, Math.abs(fit - rhs.get(r)));
        }
        assertThat(rows).hasSizeGreaterThan(500);
        assertThat(worst).as("largest residual of the linear fit").isLessThan(1e-3);
        // the dense term is large (sd 4): |z| > 2.2, a target below 0.1 or above 0.9, for ~58 % of positions;
        // the default's uniform noise has 20 %
        assertThat(decided / (double) total).isGreaterThan(0.5);
    }

    /** Gaussian elimination with partial pivoting. */
    private static double[] solve(double[][] a, double[] b) {
        int n = b.length;
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            double[] tr = a[col];
            a[col] = a[pivot];
            a[pivot] = tr;
            double tb = b[col];
            b[col] = b[pivot];
            b[pivot] = tb;
            for (int r = col + 1; r < n; r++) {
                double k = a[r][col] / a[col][col];
                for (int c = col; c < n; c++) {
                    a[r][c] -= k * a[col][c];
                }
                b[r] -= k * b[col];
            }
        }
        double[] x = new double[n];
        for (int r = n - 1; r >= 0; r--) {
            double v = b[r];
            for (int c = r + 1; c < n; c++) {
                v -= a[r][c] * x[c];
            }
            x[r] = v / a[r][r];
        }
        return x;
    }

    @Test
    void loaderGivesEachMicroBatchTheNextSamplesOfTheEpochOnAnyNumberOfWorkers() {
        SyntheticRankingDataset ds = new SyntheticRankingDataset(config(false));
        for (int workers : new int[] {0, 1, 3}) {
            List<ArraySlot> slots = List.of(new ArraySlot(ds), new ArraySlot(ds), new ArraySlot(ds));
            List<Integer> freed = new ArrayList<>();
            // an epoch of 12 samples: micro-batch 3 starts over at sample 0
            try (BatchLoader loader = new BatchLoader(ds, 4, 12, slots, workers, freed::add)) {
                for (long n = 0; n < 5; n++) {
                    ArraySlot slot = (ArraySlot) loader.acquire(n);
                    for (int row = 0; row < 4; row++) {
                        long index = (n * 4 + row) % 12;
                        assertThat(slot.rows.get(row).dense()).as("workers %d, micro-batch %d row %d", workers, n,
                                row).containsExactly(sample(ds, index).dense());
                    }
                }
                // micro-batches 3..6 refilled slots 0, 1, 2, 0: each only after the caller said it was free
                assertThat(freed).containsExactly(0, 1, 2, 0);
            }
        }
    }

    @Test
    void theRanksOfAWorldReadEverySampleOfTheEpochOnceBetweenThem() {
        SyntheticRankingDataset ds = new SyntheticRankingDataset(config(false));
        int world = 3;
        List<Long> read = new ArrayList<>();
        for (int rank = 0; rank < world; rank++) {
            List<ArraySlot> slots = List.of(new ArraySlot(ds), new ArraySlot(ds));
            // an epoch of 24 samples over 3 ranks: two micro-batches of 4 per rank
            try (BatchLoader loader = new BatchLoader(ds, 4, 24, slots, 1, slot -> { }, rank, world)) {
                for (long n = 0; n < 2; n++) {
                    ArraySlot slot = (ArraySlot) loader.acquire(n);
                    for (int row = 0; row < 4; row++) {
                        long index = loader.sampleIndex(n, row);
                        assertThat(index).as("rank %d micro-batch %d row %d", rank, n, row)
                                .isEqualTo((n * world + rank) * 4 + row);
                        assertThat(slot.rows.get(row).dense()).containsExactly(sample(ds, index).dense());
                        read.add(index);
                    }
                }
            }
        }
        assertThat(read).containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(0, 24).boxed().toList());
    }

    /** Rows kept as copies. */
    private static final class ArraySlot implements BatchSlot {
        final Map<Integer, Sample> rows = new ConcurrentHashMap<>();
        private final SyntheticRankingDataset ds;

        ArraySlot(SyntheticRankingDataset ds) {
            this.ds = ds;
        }

        @Override
        public void put(int row, Sample sample) {
            Sample copy = new Sample(ds.shape());
            System.arraycopy(sample.dense(), 0, copy.dense(), 0, copy.dense().length);
            rows.put(row, copy);
        }
    }
}
