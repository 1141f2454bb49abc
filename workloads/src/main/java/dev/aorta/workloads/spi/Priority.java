package dev.aorta.workloads.spi;

import java.util.Arrays;
import java.util.Locale;

/** Which tier a workload belongs to (AORTA's P0..P3); {@code run-priority} runs a tier. */
public enum Priority {
    P0, P1, P2, P3;

    public static Priority parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown priority '" + text + "'; expected one of "
                    + Arrays.toString(values()) + " or all");
        }
    }
}
