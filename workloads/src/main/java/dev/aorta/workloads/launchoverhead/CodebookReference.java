package dev.aorta.workloads.launchoverhead;

import java.util.Optional;

/**
 * The CPU reference of the correctness check, written independently of the kernels: plain float64 loops.
 */
public final class CodebookReference {
    /**
     * Two centroids whose float64 distances to a point differ by at most this much (relative to 1 + the smaller)
     * are a near-tie that fp32 arithmetic may resolve either way (cuBLAS sums in its own order); choosing
     * either is correct.
     */
    static final double NEAR_TIE = 1e-4;

    private CodebookReference() {
    }

    /**
     * Checks argmin assignments stage by stage against float64 nearest centroids. Where the device chose a
     * near-tie, the reference continues from the device's choice, so that later stages stay comparable.
     *
     * @param assignments per stage, the device's centroid of every point
     * @return the first wrong assignment and how many there are, or empty when all are right
     */
    public static Optional<String> checkArgmin(CodebookProblem problem, int[][] assignments) {
        CodebookShape shape = problem.shape();
        int n = shape.batch();
        int d = shape.dim();
        double[] residual = new double[n * d];
        for (int i = 0; i < residual.length; i++) {
            residual[i] = problem.batch()[i];
        }
        long wrong = 0;
        String first = null;
        for (int s = 0; s < shape.stages(); s++) {
            for (int i = 0; i < n; i++) {
                int chosen = assignments[s][i];
                if (chosen < 0 || chosen >= shape.centroids()) {
                    return Optional.of("stage " + s + ", point " + i + ": centroid " + chosen + " is out of range 0.."
                            + (shape.centroids() - 1));
                }
                int best = 0;
                double bestDistance = Double.POSITIVE_INFINITY;
                for (int k = 0; k < shape.centroids(); k++) {
                    double distance = squaredDistance(problem, residual, s, i, k);
                    if (distance < bestDistance) {
                        best = k;
                        bestDistance = distance;
                    }
                }
                double chosenDistance = squaredDistance(problem, residual, s, i, chosen);
                if (chosen != best && chosenDistance - bestDistance > NEAR_TIE * (1 + bestDistance)) {
                    wrong++;
                    if (first == null) {
                        first = "stage " + s + ", point " + i + ": centroid " + chosen + " (distance " + chosenDistance
                                + "), the nearest is " + best + " (distance " + bestDistance + ")";
                    }
                }
                for (int j = 0; j < d; j++) {
                    residual[i * d + j] -= problem.centroid(s, chosen, j);
                }
            }
        }
        return first == null ? Optional.empty()
                : Optional.of(wrong + " of " + (long) n * shape.stages() + " argmin assignments are wrong; first: " + first);
    }

    private static double squaredDistance(CodebookProblem problem, double[] residual, int stage, int point, int centroid) {
        int d = problem.shape().dim();
        double sum = 0;
        for (int j = 0; j < d; j++) {
            double diff = residual[point * d + j] - problem.centroid(stage, centroid, j);
            sum += diff * diff;
        }
        return sum;
    }

    /**
     * Checks balanced assignments: in every stage every point has a centroid, and every centroid has exactly
     * w = batch/centroids points.
     */
    public static Optional<String> checkBalanced(CodebookShape shape, int[][] assignments) {
        int w = shape.rowsPerCentroid();
        for (int s = 0; s < shape.stages(); s++) {
            int[] perCentroid = new int[shape.centroids()];
            for (int i = 0; i < shape.batch(); i++) {
                int c = assignments[s][i];
                if (c < 0 || c >= shape.centroids()) {
                    return Optional.of("stage " + s + ", point " + i + ": centroid " + c + " is out of range 0.."
                            + (shape.centroids() - 1));
                }
                perCentroid[c]++;
            }
            for (int c = 0; c < perCentroid.length; c++) {
                if (perCentroid[c] != w) {
                    return Optional.of("stage " + s + ": centroid " + c + " has " + perCentroid[c] + " points, "
                            + w + " expected (batch/centroids)");
                }
            }
        }
        return Optional.empty();
    }
}
