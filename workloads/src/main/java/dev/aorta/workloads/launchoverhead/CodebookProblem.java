package dev.aorta.workloads.launchoverhead;

import java.util.SplittableRandom;

/**
 * The data of a codebook assignment, made on the host from a seed so that a CPU reference sees the same
 * numbers as the device. Layouts are those of kernels/codebook.cu: the batch is D x N column-major (point
 * i's coordinates at {@code i*D + j}), each stage's codebook K x D column-major ({@code j*K + k}).
 * Values are uniform in [-1, 1); stage s's codebook is scaled by 2^-s, as residuals shrink from stage to stage.
 */
public record CodebookProblem(CodebookShape shape, float[] batch, float[][] codebooks) {

    public static CodebookProblem random(CodebookShape shape, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] batch = uniform(random, (long) shape.batch() * shape.dim(), 1f);
        float[][] codebooks = new float[shape.stages()][];
        for (int s = 0; s < shape.stages(); s++) {
            codebooks[s] = uniform(random, (long) shape.centroids() * shape.dim(), (float) Math.scalb(1.0, -s));
        }
        return new CodebookProblem(shape, batch, codebooks);
    }

    private static float[] uniform(SplittableRandom random, long count, float scale) {
        float[] values = new float[Math.toIntExact(count)];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (random.nextDouble(-1.0, 1.0) * scale);
        }
        return values;
    }

    /** Coordinate j of centroid k of a stage's codebook. */
    public float centroid(int stage, int k, int j) {
        return codebooks[stage][j * shape.centroids() + k];
    }
}
