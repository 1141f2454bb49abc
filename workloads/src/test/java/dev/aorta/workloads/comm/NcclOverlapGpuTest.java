package dev.aorta.workloads.comm;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessions;
import dev.aorta.workloads.session.GpuUnavailableException;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * comms_compute_overlap on the real GPU with a 1-rank NCCL communicator: every collective runs, is timed as a
 * communication kernel and passes the result check; skipped, with the reason, where there is no GPU.
 * (Several ranks: scripts/multigpu-check.sh.)
 */
class NcclOverlapGpuTest {

    @Test
    void everyCollectiveRunsOnOneRankOfRealNccl() {
        GpuSession gpu;
        try {
            gpu = GpuSessions.open(0);
        } catch (GpuUnavailableException e) {
            Assumptions.abort("no GPU here: " + e.getMessage());
            return;
        }
        try (gpu) {
            CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(gpu, DistributedEnvironment.single(),
                    null, Duration.ofSeconds(10), l -> { });
            try {
                for (Collective c : Collective.values()) {
                    OverlapConfig config = new OverlapConfig(OverlapMode.COMMS_COMPUTE, GemmSpec.square(DType.BF16, 512),
                            2, 2, 1 << 20, 1, CommDType.BF16, c, true, true);
                    CommsComputeOverlap w = new CommsComputeOverlap(config, comms.group(), comms.members(), 0, null);
                    RunResult r = new Harness(Map.of(), false).run(w,
                            HarnessOptions.defaults(w.streamCount()).withIterations(5, 1).withDtype(DType.BF16), gpu);
                    assertThat(r.correctness().problem()).as(c.label()).isNull();
                    OverlapAnalysis a = OverlapAnalysis.of(r, 1, ActivityClassifier.defaults());
                    assertThat(a.commNs()).as(c.label() + " communication kernels").isPositive();
                    assertThat(a.computeNs()).as(c.label() + " GEMMs").isPositive();
                }
            } finally {
                comms.all().forEach(x -> x.close());
            }
        }
    }
}
