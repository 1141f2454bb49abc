package dev.aorta.workloads.harness;

/** Where the per-kernel device timestamps of a result came from. */
public enum TimingSource {
    /** CUPTI activity records of every kernel of every measured iteration. */
    CUPTI("cupti"),
    /** Event pairs around every op of a few sampled iterations (see {@link EventPairSampler}). */
    EVENT_PAIRS_SAMPLED("event_pairs_sampled");

    private final String label;

    TimingSource(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
