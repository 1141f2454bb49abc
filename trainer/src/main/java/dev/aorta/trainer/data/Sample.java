package dev.aorta.trainer.data;

/**
 * One sample's host arrays, reused from sample to sample by one thread: dense [T, F, D], categorical ids [T, S],
 * target [T] and importance [T], row-major as the model reads them.
 */
public final class Sample {
    final float[] dense;
    final int[] categorical;
    final float[] target;
    final float[] importance;

    public Sample(SyntheticRankingDataset.Shape shape) {
        this.dense = new float[shape.denseElements()];
        this.categorical = new int[shape.categoricalElements()];
        this.target = new float[shape.sequenceLength()];
        this.importance = new float[shape.sequenceLength()];
    }

    public float[] dense() {
        return dense;
    }

    public int[] categorical() {
        return categorical;
    }

    public float[] target() {
        return target;
    }

    public float[] importance() {
        return importance;
    }
}
