package dev.aorta.workloads.launchoverhead;

import dev.aorta.gpu.cuda.DeviceInfo;

import java.time.Instant;
import java.util.List;

/**
 * A launch_overhead run: every rank's pattern results (gathered through the communicator; one rank without one),
 * the correctness check, when balanced was measured whether its full-size assignments gave every centroid
 * exactly w points, and when a collective pattern was measured whether every all-reduce element was the sum
 * over the ranks (null: right, or not measured).
 */
public record LaunchOverheadResult(Instant timestamp, LaunchOverheadOptions options, DeviceInfo device, int worldSize,
                                   List<RankResult> ranks, CorrectnessCheck.Result correctness,
                                   String balancedFullSizeProblem, String allReduceProblem) {

    /** One rank's results, in the order of the patterns asked for. */
    public record RankResult(int rank, int device, List<PatternResult> patterns) {
    }

    public boolean correct() {
        return correctness.passed() && balancedFullSizeProblem == null && allReduceProblem == null;
    }
}
