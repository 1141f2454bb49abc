package dev.aorta.workloads.harness;

import java.util.Arrays;

/** Which source of per-kernel device timestamps a run asks for. */
public enum KernelTimingMode {
    /** CUPTI when the session has it, sampled event pairs otherwise. */
    AUTO("auto"),
    /** CUPTI or an error: for runs whose results must cover every kernel. */
    CUPTI("cupti"),
    /**
     * Sampled event pairs even when CUPTI works: the unsampled iterations then run with no tracing at
     * all, so their host enqueue time is the bare launch cost.
     */
    EVENT_PAIRS("event-pairs");

    private final String label;

    KernelTimingMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static KernelTimingMode parse(String text) {
        for (KernelTimingMode m : values()) {
            if (m.label.equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown --kernel-timing '" + text + "'; expected one of "
                + Arrays.stream(values()).map(KernelTimingMode::label).toList());
    }
}
