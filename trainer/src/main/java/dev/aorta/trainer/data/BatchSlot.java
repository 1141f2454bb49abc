package dev.aorta.trainer.data;

/** Host storage for one micro-batch: {@link #put} copies a sample into row {@code row} of each of its tensors. */
public interface BatchSlot {
    /** Called from loader threads, each for its own rows; must be safe for distinct rows at once. */
    void put(int row, Sample sample);
}
