package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.gpu.DeviceInfo;

import java.time.Instant;
import java.util.List;

/**
 * A launch_overhead run: every rank's pattern results (gathered to rank 0; one rank per process until the
 * multi-GPU launcher brings more), the correctness check, and, when balanced was measured, whether its
 * full-size assignments gave every centroid exactly w points.
 */
public record LaunchOverheadResult(Instant timestamp, LaunchOverheadOptions options, DeviceInfo device, int worldSize,
                                   List<RankResult> ranks, CorrectnessCheck.Result correctness,
                                   String balancedFullSizeProblem) {

    /** One rank's results, in the order of the patterns asked for. */
    public record RankResult(int rank, int device, List<PatternResult> patterns) {
    }

    public boolean correct() {
        return correctness.passed() && balancedFullSizeProblem == null;
    }
}
