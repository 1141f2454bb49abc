package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessions;
import dev.aorta.workloads.session.GpuUnavailableException;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitor;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The correctness check and a short run on the real GPU; skipped, with the reason, where there is none. */
class LaunchOverheadGpuTest {

    @Test
    void onTheGpuArgminMatchesTheReferenceAndBalancedGivesEveryCentroidWPoints() {
        GpuSession gpu;
        try {
            gpu = GpuSessions.open(0);
        } catch (GpuUnavailableException e) {
            Assumptions.abort("no GPU here: " + e.getMessage());
            return;
        }
        try (gpu) {
            LaunchOverheadRun run = new LaunchOverheadRun(p -> new CudaCodebookDevice(gpu, p),
                    () -> PcieMonitor.unavailable("not sampled in this test"), System::nanoTime);
            CodebookShape shape = new CodebookShape(512, 50, 2048, 3);
            LaunchOverheadResult r = run.run(new LaunchOverheadOptions(shape, List.of(Pattern.ARGMIN, Pattern.BALANCED),
                    0.2, 1, 0, 11), gpu.deviceInfo());
            assertThat(r.correctness().argminProblem()).isNull();
            assertThat(r.correctness().balancedProblem()).isNull();
            assertThat(r.balancedFullSizeProblem()).isNull();
            PatternResult balanced = r.ranks().getFirst().patterns().get(1);
            assertThat(balanced.launchesPerStep()).isEqualTo(1 + 3 * (5 + 6 * 512 + 2));
            assertThat(balanced.syncsPerStep()).isEqualTo(3 * 512 + 1);
            assertThat(gpu.memoryStats().allocatedBytes()).isZero();
        }
    }
}
