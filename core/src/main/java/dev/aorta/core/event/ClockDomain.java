package dev.aorta.core.event;

/**
 * The clock a timestamp was read from. Every timestamp in the event model is integer nanoseconds
 * in one of these domains; {@link ClockAnchor} pairs let the analyzer map one onto another.
 */
public enum ClockDomain {
    /** {@code System.nanoTime()} = CLOCK_MONOTONIC on Linux. */
    HOST_MONOTONIC("host-monotonic"),
    /** Nanoseconds since the Unix epoch. */
    EPOCH("epoch"),
    /** CUPTI's timebase ({@code cuptiGetTimestamp}). */
    CUPTI("cupti"),
    /** CLOCK_BOOTTIME, used by rocprofv3. */
    BOOTTIME("boottime"),
    /** Nanoseconds since an Nsight Systems session started. */
    SESSION_RELATIVE("session-relative"),
    /** Kineto's epoch microseconds, converted to nanoseconds. */
    KINETO_EPOCH_US("kineto-epoch-us"),
    /**
     * Nanoseconds from the first record of a Chrome trace aorta exported ({@link AortaChromeTrace}): the records of
     * one rank share it, and it relates to no other clock.
     */
    TRACE_RELATIVE("trace-relative");

    private final String tag;

    ClockDomain(String tag) {
        this.tag = tag;
    }

    /** The tag written into traces. */
    public String tag() {
        return tag;
    }

    public static ClockDomain fromTag(String tag) {
        for (ClockDomain d : values()) {
            if (d.tag.equals(tag)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown clock tag '" + tag + "'; expected one of "
                + java.util.Arrays.stream(values()).map(ClockDomain::tag).toList());
    }
}
