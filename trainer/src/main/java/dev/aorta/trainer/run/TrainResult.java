package dev.aorta.trainer.run;

import java.nio.file.Path;

/**
 * How a run ended: optimizer steps done of those planned, the first and last step's loss, the median host step
 * time, the wall time of the whole loop, and the signal that stopped it early (null when it ran to the end).
 */
public record TrainResult(int steps, int plannedSteps, double firstLoss, double lastLoss, double medianStepMs,
                          double loopSeconds, String stoppedBy, Path metricsFile) {
}
