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
 * comms_compute_overlap on the real GPU with a 1-rank NCCL communicator: every collective runs, does device work on
 * the communication stream (a kernel, or the copy NCCL makes of it on one rank) and passes the result check;
 * skipped, with the reason, where there is no GPU.
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
                    // one rank has nothing to exchange: NCCL may run a collective as a device copy instead of a
                    // kernel, so the communication stream's device time, not a communication kernel, shows it ran
                    double commStreamMs = r.streams().stream()
                            .filter(st -> st.role().equals(CommsComputeOverlap.COMM_ROLE))
                            .mapToDouble(RunResult.StreamStats::busyMs).sum();
                    System.out.printf("%s: communication kernels %.0f ns, communication stream busy %.4f ms%n",
                            c.label(), a.commNs(), commStreamMs);
                    assertThat(commStreamMs).as(c.label() + " device work on the communication stream").isPositive();
                    assertThat(a.computeNs()).as(c.label() + " GEMMs").isPositive();
                }
            } finally {
                comms.all().forEach(x -> x.close());
            }
        }
    }
}
