package dev.aorta.trainer.run;

import java.nio.file.Path;

/**
 * What {@code aorta train} does besides training; each path may be null.
 *
 * @param initWeights      start from these weights (a parameter file with the model's state_dict names)
 * @param saveWeights      write the starting weights here, before the first step
 * @param saveFinalWeights write the weights here after the last step
 * @param dumpBatches      write every micro-batch, the learning rate of every step and the optimizer's settings
 *                         here, for a reference implementation to replay the run
 */
public record TrainOptions(Path initWeights, Path saveWeights, Path saveFinalWeights, Path dumpBatches) {
    public static TrainOptions none() {
        return new TrainOptions(null, null, null, null);
    }
}
