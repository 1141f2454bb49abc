package dev.aorta.workloads.harness;

import java.util.Arrays;
import java.util.Locale;

/** How the host waits for the device during the measured iterations. */
public enum SyncMode {
    /**
     * The host waits for all streams after each iteration, so every iteration starts on an idle device;
     * an iteration's latency runs from an event recorded before its first launch to the event of a
     * timing stream that waits on every workload stream.
     */
    PER_ITERATION("per_iteration"),
    /**
     * Iterations are enqueued back to back and the host waits once at the end; iteration i's time is the
     * device time between the completion of iteration i−1 and of iteration i, both seen by the timing
     * stream that waits on every workload stream, so iterations may overlap across streams.
     */
    END_ONLY("end_only"),
    /**
     * Nothing but the final wait and no per-iteration events: reports the host's enqueue rate and the
     * end-to-end throughput; per-iteration latency is not defined.
     */
    NONE("none");

    private final String label;

    SyncMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static SyncMode parse(String text) {
        for (SyncMode m : values()) {
            if (m.label.equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown --sync-mode '" + text + "'; expected one of "
                + Arrays.stream(values()).map(SyncMode::label).toList());
    }

    @Override
    public String toString() {
        return label.toLowerCase(Locale.ROOT);
    }
}
