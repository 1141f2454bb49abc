package dev.aorta.workloads.harness;

import java.util.Arrays;

/** Which source of per-kernel device timestamps a run asks for, in the traced iterations after the measured ones. */
public enum KernelTimingMode {
    /** CUPTI when the session has it, sampled event pairs otherwise. */
    AUTO("auto"),
    /** CUPTI or an error: for runs whose results must cover every kernel. */
    CUPTI("cupti"),
    /** Event pairs around every op even when CUPTI works (what an external profiler such as nsys runs beside). */
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
