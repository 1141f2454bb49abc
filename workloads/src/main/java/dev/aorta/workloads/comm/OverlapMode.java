package dev.aorta.workloads.comm;

import java.util.Arrays;
import java.util.Locale;

/** What an iteration of comms_compute_overlap issues. */
public enum OverlapMode {
    /** Collectives on stream 0 and GEMMs on the compute streams, at once. */
    COMMS_COMPUTE,
    /** Only the GEMMs (the reference for the compute slowdown). */
    COMPUTE_ONLY,
    /** Only the collectives (the reference for bandwidth). */
    COMMS_ONLY;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean computes() {
        return this != COMMS_ONLY;
    }

    public boolean communicates() {
        return this != COMPUTE_ONLY;
    }

    public static OverlapMode parse(String text) {
        for (OverlapMode m : values()) {
            if (m.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("--mode: unknown mode '" + text + "'; expected one of "
                + Arrays.stream(values()).map(OverlapMode::label).toList());
    }
}
