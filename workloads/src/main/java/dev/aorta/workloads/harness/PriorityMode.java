package dev.aorta.workloads.harness;

import dev.aorta.gpu.cuda.PriorityRange;

import java.util.Arrays;

/** Which CUDA priority each workload stream gets, from the device's priority range. */
public enum PriorityMode {
    /** Every stream at the least urgent (default) priority. */
    NONE("none"),
    /** Every stream at the most urgent priority. */
    ALL_HIGH("all-high"),
    /**
     * The first half of the streams (⌊n/2⌋) at the least urgent priority, the rest at the most urgent:
     * the P0 workloads put their bulk work on the first streams, so this lets the rest overtake it.
     */
    MIXED("mixed");

    private final String label;

    PriorityMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public int priorityFor(int streamIndex, int streamCount, PriorityRange range) {
        return switch (this) {
            case NONE -> range.least();
            case ALL_HIGH -> range.greatest();
            case MIXED -> streamIndex < streamCount / 2 ? range.least() : range.greatest();
        };
    }

    public static PriorityMode parse(String text) {
        for (PriorityMode m : values()) {
            if (m.label.equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown --priorities '" + text + "'; expected one of "
                + Arrays.stream(values()).map(PriorityMode::label).toList());
    }
}
