package dev.aorta.workloads.launchoverhead;

import java.util.function.IntConsumer;

/**
 * One step of each pattern, written once against {@link CodebookDevice} and {@link StageAllReduce}: the GPU and
 * the host model run exactly this sequence.
 */
public final class CodebookSteps {
    private CodebookSteps() {
    }

    /** argmin: per stage, distances through a GEMM and the norms, the nearest centroid, gather, residual update. */
    public static void argmin(CodebookDevice device) {
        device.beginStep();
        for (int s = 0; s < device.shape().stages(); s++) {
            distances(device, s);
            device.argminRows(s);
            device.gatherCentroids(s);
            device.residualUpdate();
        }
        device.finishStep();
    }

    /**
     * balanced: per stage, the same distances, then a host loop over the centroids in order, each taking its
     * w nearest still-unassigned points: copy the column, mask the assigned points (compaction, with the count
     * read back like the seed's boolean-mask indexing), select, write the assignments, update the mask.
     */
    public static void balanced(CodebookDevice device) {
        balanced(device, stage -> { });
    }

    /**
     * all_reduce: per stage, the two all-reduces (K and K x D fp32), stream-ordered on the collective stream;
     * the step ends when they are done (one sync).
     */
    public static void allReduce(StageAllReduce collectives, int stages) {
        for (int s = 0; s < stages; s++) {
            collectives.stage();
        }
        collectives.finish();
    }

    /**
     * combined: a balanced step whose every stage also issues the two all-reduces (after its residual update, as
     * the seed's k-means update follows the assignment); they run on the collective stream while the next
     * stage's launches go on, and the step ends when both streams are done (two syncs).
     */
    public static void combined(CodebookDevice device, StageAllReduce collectives) {
        balanced(device, stage -> collectives.stage());
        collectives.finish();
    }

    private static void balanced(CodebookDevice device, IntConsumer afterStage) {
        CodebookShape shape = device.shape();
        int w = shape.rowsPerCentroid();
        device.beginStep();
        for (int s = 0; s < shape.stages(); s++) {
            distances(device, s);
            device.resetMask();
            for (int k = 0; k < shape.centroids(); k++) {
                device.copyColumn(k);
                int count = device.compactUnassigned();
                int expected = shape.batch() - k * w;
                if (count != expected) {
                    throw new IllegalStateException("balanced assignment, stage " + s + ", centroid " + k + ": the device counts "
                            + count + " unassigned points, " + expected + " expected (batch - centroid x w)");
                }
                device.gatherCandidates(count);
                device.selectNearest(count);
                device.writeAssignments(s, k);
                device.updateMask();
            }
            device.gatherCentroids(s);
            device.residualUpdate();
            afterStage.accept(s);
        }
        device.finishStep();
    }

    private static void distances(CodebookDevice device, int stage) {
        device.pointNorms();
        device.centroidNorms(stage);
        device.dots(stage);
        device.distancesFromDots();
    }
}
