package dev.aorta.trainer.run;

import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.gpu.cuda.MemoryStats;

import java.nio.file.Path;
import java.util.List;

/**
 * How a run ended: optimizer steps done of those planned, the first and last step's loss, the median host step
 * time, the wall time of the whole loop, and the signal that stopped it early (null when it ran to the end).
 * {@code collectives}: this rank's collectives from its second step on, grouped by kind, size and group, with
 * their device times (none on one GPU or one rank); {@code unpairedSteps}: steps left out of them because their
 * collective kernels could not be paired with the schedule ({@link dev.aorta.trainer.metrics.StepCollectives});
 * {@code deviceMemory}: this rank's allocator at the end of the loop (its peaks and what they were made of), null
 * when the loop did not run.
 */
public record TrainResult(int steps, int plannedSteps, double firstLoss, double lastLoss, double medianStepMs,
                          double loopSeconds, String stoppedBy, Path metricsFile,
                          List<CollectiveBandwidth> collectives, int unpairedSteps, MemoryStats deviceMemory) {
    public TrainResult {
        collectives = List.copyOf(collectives);
    }
}
