package dev.aorta.workloads.launchoverhead;

/**
 * The operations of the codebook assignment, each one kernel launch (or one GEMM) of kernels/codebook.cu
 * unless said otherwise, in the order of one stream. {@link CodebookSteps} composes them into the patterns;
 * {@link CudaCodebookDevice} issues them on a GPU; the tests' HostCodebookDevice computes the same on the CPU.
 * Implementations count launches and syncs in {@link #counters()} as they issue them.
 */
public interface CodebookDevice extends AutoCloseable {

    CodebookShape shape();

    /** residual = batch, quantized = 0. */
    void beginStep();

    /** ||x_i||^2 of the residual. */
    void pointNorms();

    /** ||c_k||^2 of a stage's codebook. */
    void centroidNorms(int stage);

    /** The dot products c_k · x_i of a stage's codebook and the residual (one GEMM). */
    void dots(int stage);

    /** The dot products become squared distances ||x_i||^2 + ||c_k||^2 − 2 c_k · x_i. */
    void distancesFromDots();

    /** Each point's nearest centroid (ties: the lowest index) into the stage's assignments. */
    void argminRows(int stage);

    /** Each point's assigned centroid of the stage, gathered. */
    void gatherCentroids(int stage);

    /** residual −= gathered, quantized += gathered. */
    void residualUpdate();

    /** Balanced: no point is assigned yet. */
    void resetMask();

    /** Balanced: the distances of all points to one centroid. */
    void copyColumn(int centroid);

    /**
     * Balanced: compacts the unassigned points (in increasing order) and reads their count back to the host:
     * one launch and one sync, because the next launches are sized by the count.
     */
    int compactUnassigned();

    /** Balanced: the column's distances at the {@code count} unassigned points. */
    void gatherCandidates(int count);

    /** Balanced: the w = batch/centroids nearest of the {@code count} candidates (ties: the lowest point). */
    void selectNearest(int count);

    /** Balanced: the selected points are assigned to {@code centroid} in the stage's assignments. */
    void writeAssignments(int stage, int centroid);

    /** Balanced: the selected points leave the pool. */
    void updateMask();

    /** Waits until the step's work is done (one sync). */
    void finishStep();

    /** A stage's assignments of the last step (a read for checks, not counted). */
    int[] assignments(int stage);

    LaunchCounters counters();

    @Override
    void close();
}
