package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.session.SimulatedGpuSession;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The GPU device's launch sequence on the simulated session, which checks every launch against the kernels
 * and argument counts of codebook.cu and counts what reaches the device on its own.
 */
class CudaCodebookDeviceTest {
    private static final CodebookShape SHAPE = new CodebookShape(16, 8, 64, 2);

    @Test
    void itsOwnCountsEqualWhatTheDeviceReceived() {
        SimulatedGpuSession sim = new SimulatedGpuSession();
        int w = SHAPE.rowsPerCentroid();
        int[] reads = {0};
        // the simulated device runs no codebook kernel: answer the count read-back as a correct device would
        sim.intReadback = buffer -> SHAPE.batch() - (reads[0]++ % SHAPE.centroids()) * w;
        try (CudaCodebookDevice device = new CudaCodebookDevice(sim, CodebookProblem.random(SHAPE, 1))) {
            int before = sim.launches;
            CodebookSteps.argmin(device);
            CodebookSteps.balanced(device);
            assertThat(device.counters().launches()).isEqualTo(sim.launches - before)
                    .isEqualTo((1 + 2 * 7) + (1 + 2 * (5 + 6 * 16 + 2)));
            assertThat(device.counters().syncs() - 2).isEqualTo(sim.streamReadbacks).isEqualTo(2 * 16);
        }
        assertThat(sim.allocatedBytes()).isZero();
        assertThat(sim.liveStreams).isZero();
    }

    @Test
    void aCountReadBackThatDisagreesStopsTheStep() {
        SimulatedGpuSession sim = new SimulatedGpuSession();
        sim.intReadback = buffer -> 3;
        try (CudaCodebookDevice device = new CudaCodebookDevice(sim, CodebookProblem.random(SHAPE, 1))) {
            assertThatThrownBy(() -> CodebookSteps.balanced(device)).hasMessageContaining(
                    "stage 0, centroid 0: the device counts 3 unassigned points, 64 expected");
        }
    }
}
