package dev.aorta.workloads.launchoverhead;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The patterns on the host model of kernels/codebook.cu, against the float64 reference. */
class CodebookStepsTest {
    private static final CodebookShape SMALL = new CodebookShape(32, 8, 128, 3);

    @Test
    void argminAssignmentsEqualTheFloat64Reference() {
        CodebookProblem problem = CodebookProblem.random(SMALL, 7);
        try (HostCodebookDevice device = new HostCodebookDevice(problem)) {
            CodebookSteps.argmin(device);
            assertThat(CodebookReference.checkArgmin(problem, CorrectnessCheck.assignments(device))).isEmpty();
        }
    }

    @Test
    void aWrongNearestCentroidIsFoundAndNamed() {
        CodebookProblem problem = CodebookProblem.random(SMALL, 7);
        try (HostCodebookDevice device = new HostCodebookDevice(problem)) {
            CodebookSteps.argmin(device);
            int[][] assignments = CorrectnessCheck.assignments(device);
            assignments[1][5] = (assignments[1][5] + 1) % SMALL.centroids();
            assertThat(CodebookReference.checkArgmin(problem, assignments)).hasValueSatisfying(
                    p -> assertThat(p).contains("stage 1, point 5").contains("the nearest is"));
        }
    }

    @Test
    void balancedGivesEveryCentroidExactlyWPointsInEveryStage() {
        CodebookProblem problem = CodebookProblem.random(SMALL, 3);
        try (HostCodebookDevice device = new HostCodebookDevice(problem)) {
            CodebookSteps.balanced(device);
            int[][] assignments = CorrectnessCheck.assignments(device);
            assertThat(CodebookReference.checkBalanced(SMALL, assignments)).isEmpty();
            assertThat(assignments[0]).containsOnly(java.util.stream.IntStream.range(0, 32).toArray());
        }
    }

    @Test
    void balancedTakesEachCentroidsNearestUnassignedPointsInCentroidOrder() {
        // 2 centroids on a line at 0 and 10, 4 points; w = 2: centroid 0 takes its two nearest, centroid 1 the rest
        CodebookShape shape = new CodebookShape(2, 1, 4, 1);
        float[] points = {9f, 1f, 11f, 2f};
        float[][] codebooks = {{0f, 10f}};
        try (HostCodebookDevice device = new HostCodebookDevice(new CodebookProblem(shape, points, codebooks))) {
            CodebookSteps.balanced(device);
            assertThat(device.assignments(0)).containsExactly(1, 0, 1, 0);
        }
    }

    @Test
    void aCentroidThatGetsTwiceWPointsFailsTheBalancedCheck() {
        int[][] assignments = {{0, 0, 0, 1}};
        assertThat(CodebookReference.checkBalanced(new CodebookShape(2, 1, 4, 1), assignments))
                .hasValue("stage 0: centroid 0 has 3 points, 2 expected (batch/centroids)");
    }

    @Test
    void aDeviceWhoseMaskForgetsAssignedPointsIsCaughtByTheCountReadBack() {
        CodebookProblem problem = CodebookProblem.random(SMALL, 3);
        HostCodebookDevice forgetful = new HostCodebookDevice(problem) {
            @Override
            public void updateMask() {
                counters().launched();
            }
        };
        assertThatThrownBy(() -> CodebookSteps.balanced(forgetful)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("centroid 1: the device counts 128 unassigned points, 124 expected");
    }

    @Test
    void launchesAndSyncsAreCountedAsIssued() {
        CodebookProblem problem = CodebookProblem.random(SMALL, 1);
        try (HostCodebookDevice device = new HostCodebookDevice(problem)) {
            CodebookSteps.argmin(device);
            // begin_step, then per stage 2 norms + GEMM + distances + argmin + gather + residual update; one sync
            assertThat(device.counters().launches()).isEqualTo(1 + 3 * 7);
            assertThat(device.counters().syncs()).isEqualTo(1);
            CodebookSteps.balanced(device);
            // per stage: 2 norms + GEMM + distances + reset + 6 per centroid + gather + residual update
            assertThat(device.counters().launches()).isEqualTo(22 + 1 + 3 * (5 + 6 * 32 + 2));
            assertThat(device.counters().syncs()).isEqualTo(1 + 3 * 32 + 1);
        }
    }

    @Test
    void theSeedsShapeIssuesAbout147ThousandLaunchesAndOneSyncPerCentroidPerStage() {
        CountingDevice device = new CountingDevice(CodebookShape.SEED);
        CodebookSteps.balanced(device);
        assertThat(device.counters().launches()).isEqualTo(147_478);
        assertThat(device.counters().syncs()).isEqualTo(3 * 8192 + 1);
    }

    /** Issues nothing, computes nothing: counts, and answers the count read-back the way a correct device would. */
    private static final class CountingDevice implements CodebookDevice {
        private final CodebookShape shape;
        private final LaunchCounters counters = new LaunchCounters();
        private int unassigned;

        CountingDevice(CodebookShape shape) {
            this.shape = shape;
        }

        @Override public CodebookShape shape() { return shape; }
        @Override public void beginStep() { counters.launched(); }
        @Override public void pointNorms() { counters.launched(); }
        @Override public void centroidNorms(int stage) { counters.launched(); }
        @Override public void dots(int stage) { counters.launched(); }
        @Override public void distancesFromDots() { counters.launched(); }
        @Override public void argminRows(int stage) { counters.launched(); }
        @Override public void gatherCentroids(int stage) { counters.launched(); }
        @Override public void residualUpdate() { counters.launched(); }
        @Override public void resetMask() { counters.launched(); unassigned = shape.batch(); }
        @Override public void copyColumn(int centroid) { counters.launched(); }
        @Override public int compactUnassigned() { counters.launched(); counters.synced(); return unassigned; }
        @Override public void gatherCandidates(int count) { counters.launched(); }
        @Override public void selectNearest(int count) { counters.launched(); }
        @Override public void writeAssignments(int stage, int centroid) { counters.launched(); }
        @Override public void updateMask() { counters.launched(); unassigned -= shape.rowsPerCentroid(); }
        @Override public void finishStep() { counters.synced(); }
        @Override public int[] assignments(int stage) { return new int[shape.batch()]; }
        @Override public LaunchCounters counters() { return counters; }
        @Override public void close() { }
    }
}
