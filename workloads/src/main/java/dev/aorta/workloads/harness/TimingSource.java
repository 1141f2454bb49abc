package dev.aorta.workloads.harness;

/** Where the per-kernel device timestamps of a result came from. */
public enum TimingSource {
    /** CUPTI activity records of every kernel of the traced iterations. */
    CUPTI("cupti"),
    /** Event pairs around every op of the traced iterations (see {@link EventPairSampler}). */
    EVENT_PAIRS_SAMPLED("event_pairs_sampled");

    private final String label;

    TimingSource(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
