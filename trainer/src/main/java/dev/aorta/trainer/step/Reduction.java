package dev.aorta.trainer.step;

/**
 * How a reducing collective combines the ranks' values: gradients are averaged (each rank's loss is the mean over
 * its own samples, so the mean over ranks is the full batch's gradient), the shards' sums of squares are summed.
 */
public enum Reduction { SUM, MEAN }
