package dev.aorta.workloads.spi;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which tier a workload belongs to (AORTA's P0..P3); {@code run-priority} runs a tier. UNTIERED: AORTA gives it no
 * tier (comms_compute_overlap, launch_overhead); {@code run-priority untiered} runs these, {@code all} the four tiers as
 * AORTA does.
 */
public enum Priority {
    P0, P1, P2, P3, UNTIERED;

    /** As printed by {@code list}: the tier, or "-". */
    public String label() {
        return this == UNTIERED ? "-" : name();
    }

    public static Priority parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown priority '" + text + "'; expected one of "
                    + Arrays.toString(values()) + " or all (the tiers P0..P3)");
        }
    }
}
