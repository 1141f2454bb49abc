package dev.aorta.workloads.comm;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.harness.RunResult;

import java.util.List;

/**
 * One rank's measurement of comms_compute_overlap: the run of the chosen mode and, for comms_compute, the two
 * references measured right after it in the same process (same GEMMs, streams and collectives, alone).
 *
 * @param members          world ranks of this rank's group (empty with simulated collectives)
 * @param computeReference compute_only run (null unless mode is comms_compute and references are on)
 * @param commReference    comms_only run (likewise)
 */
public record OverlapOutcome(OverlapConfig config, DistributedEnvironment environment, List<Integer> members,
                             String backend, String processGroups, String correctnessRule,
                             RunResult main, RunResult computeReference, RunResult commReference) {

    public OverlapAnalysis mainAnalysis() {
        return OverlapAnalysis.of(main, config.collectives(), ActivityClassifier.defaults());
    }

    public OverlapAnalysis analysis(RunResult run) {
        return run == null ? null : OverlapAnalysis.of(run, config.collectives(), ActivityClassifier.defaults());
    }

    /** Ranks the collective spans: the group's size, 1 for the simulated copy. */
    public int groupSize() {
        return members.isEmpty() ? 1 : members.size();
    }

    /** busbw / algbw; NaN for the simulated copy, whose "bus" is one device's memory. */
    public double busFactor() {
        return config.real() ? config.collective().busBandwidthFactor(groupSize()) : Double.NaN;
    }

    /** Compute time (|C| per iteration) with communication over compute_only's; NaN without the reference. */
    public double computeSlowdown() {
        OverlapAnalysis ref = analysis(computeReference);
        return ref == null || ref.computeNs() == 0 ? Double.NaN : mainAnalysis().computeNs() / ref.computeNs();
    }

    /** Collective time with compute over comms_only's; NaN without the reference. */
    public double commSlowdown() {
        OverlapAnalysis ref = analysis(commReference);
        return ref == null ? Double.NaN : mainAnalysis().collectiveTimeNs() / ref.collectiveTimeNs();
    }

    /**
     * nccl-tests' way of timing (back to back, events around the loop): S × collectives × iterations / the
     * device time of all measured iterations; only meaningful in comms_only.
     */
    public double loopAlgbwGbps() {
        return (double) config.commBytes() * config.collectives() * main.options().iterations()
                / (main.totalTimeMs() * 1e6);
    }
}
