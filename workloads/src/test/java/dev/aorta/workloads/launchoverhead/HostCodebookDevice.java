package dev.aorta.workloads.launchoverhead;

/**
 * kernels/codebook.cu transcribed to Java, one method per kernel, in fp32 with the kernels' tie rules (the
 * GEMM sums in coordinate order; cuBLAS may sum in another order, so near-equal distances can differ in the
 * last bit). It is the host model the tests run {@link CodebookSteps} and the correctness check on, and it
 * counts launches and syncs exactly where {@link CudaCodebookDevice} issues them.
 */
public class HostCodebookDevice implements CodebookDevice {
    private final CodebookShape shape;
    private final CodebookProblem problem;
    private final LaunchCounters counters = new LaunchCounters();
    private final int n;
    private final int k;
    private final int d;
    private final int w;
    private final float[] residual;
    private final float[] quantized;
    private final float[] gathered;
    private final float[] pointNorms;
    private final float[] centroidNorms;
    /** K x N: dots, then distances, point i's at [i*K, (i+1)*K). */
    private final float[] dist;
    private final int[][] assign;
    private final int[] assigned;
    private final float[] column;
    private final int[] candidates;
    private final float[] values;
    private final int[] chosen;

    public HostCodebookDevice(CodebookProblem problem) {
        this.problem = problem;
        this.shape = problem.shape();
        n = shape.batch();
        k = shape.centroids();
        d = shape.dim();
        w = shape.rowsPerCentroid();
        residual = new float[n * d];
        quantized = new float[n * d];
        gathered = new float[n * d];
        pointNorms = new float[n];
        centroidNorms = new float[k];
        dist = new float[Math.multiplyExact(n, k)];
        assign = new int[shape.stages()][n];
        assigned = new int[n];
        column = new float[n];
        candidates = new int[n];
        values = new float[n];
        chosen = new int[w];
    }

    @Override
    public CodebookShape shape() {
        return shape;
    }

    @Override
    public void beginStep() {
        counters.launched();
        System.arraycopy(problem.batch(), 0, residual, 0, residual.length);
        java.util.Arrays.fill(quantized, 0f);
    }

    @Override
    public void pointNorms() {
        counters.launched();
        for (int i = 0; i < n; i++) {
            float s = 0f;
            for (int j = 0; j < d; j++) {
                float v = residual[i * d + j];
                s += v * v;
            }
            pointNorms[i] = s;
        }
    }

    @Override
    public void centroidNorms(int stage) {
        counters.launched();
        float[] c = problem.codebooks()[stage];
        for (int c0 = 0; c0 < k; c0++) {
            float s = 0f;
            for (int j = 0; j < d; j++) {
                float v = c[j * k + c0];
                s += v * v;
            }
            centroidNorms[c0] = s;
        }
    }

    @Override
    public void dots(int stage) {
        counters.launched();
        float[] c = problem.codebooks()[stage];
        for (int i = 0; i < n; i++) {
            for (int c0 = 0; c0 < k; c0++) {
                float s = 0f;
                for (int j = 0; j < d; j++) {
                    s += c[j * k + c0] * residual[i * d + j];
                }
                dist[i * k + c0] = s;
            }
        }
    }

    @Override
    public void distancesFromDots() {
        counters.launched();
        for (int i = 0; i < n; i++) {
            for (int c0 = 0; c0 < k; c0++) {
                dist[i * k + c0] = pointNorms[i] + centroidNorms[c0] - 2f * dist[i * k + c0];
            }
        }
    }

    @Override
    public void argminRows(int stage) {
        counters.launched();
        for (int i = 0; i < n; i++) {
            int best = 0;
            for (int c0 = 1; c0 < k; c0++) {
                if (dist[i * k + c0] < dist[i * k + best]) {
                    best = c0;
                }
            }
            assign[stage][i] = best;
        }
    }

    @Override
    public void gatherCentroids(int stage) {
        counters.launched();
        float[] c = problem.codebooks()[stage];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                gathered[i * d + j] = c[j * k + assign[stage][i]];
            }
        }
    }

    @Override
    public void residualUpdate() {
        counters.launched();
        for (int i = 0; i < residual.length; i++) {
            residual[i] -= gathered[i];
            quantized[i] += gathered[i];
        }
    }

    @Override
    public void resetMask() {
        counters.launched();
        java.util.Arrays.fill(assigned, 0);
    }

    @Override
    public void copyColumn(int centroid) {
        counters.launched();
        for (int i = 0; i < n; i++) {
            column[i] = dist[i * k + centroid];
        }
    }

    @Override
    public int compactUnassigned() {
        counters.launched();
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (assigned[i] == 0) {
                candidates[count++] = i;
            }
        }
        counters.synced();
        return count;
    }

    @Override
    public void gatherCandidates(int count) {
        counters.launched();
        for (int j = 0; j < count; j++) {
            values[j] = column[candidates[j]];
        }
    }

    @Override
    public void selectNearest(int count) {
        counters.launched();
        for (int r = 0; r < w; r++) {
            int at = -1;
            for (int j = 0; j < count; j++) {
                if (at < 0 || values[j] < values[at]) {
                    at = j;
                }
            }
            chosen[r] = at < 0 ? -1 : candidates[at];
            if (at >= 0) {
                values[at] = Float.POSITIVE_INFINITY;
            }
        }
    }

    @Override
    public void writeAssignments(int stage, int centroid) {
        counters.launched();
        for (int r = 0; r < w; r++) {
            if (chosen[r] >= 0) {
                assign[stage][chosen[r]] = centroid;
            }
        }
    }

    @Override
    public void updateMask() {
        counters.launched();
        for (int r = 0; r < w; r++) {
            if (chosen[r] >= 0) {
                assigned[chosen[r]] = 1;
            }
        }
    }

    @Override
    public void finishStep() {
        counters.synced();
    }

    @Override
    public int[] assignments(int stage) {
        return assign[stage].clone();
    }

    @Override
    public LaunchCounters counters() {
        return counters;
    }

    @Override
    public void close() {
    }
}
