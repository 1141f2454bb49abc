package dev.aorta.core.event;

/**
 * The marks by which a Chrome-trace (Perfetto) JSON that aorta wrote says so, for {@code aorta analyze} to read it
 * back: the analyzer's merged-timeline export and the trainer's profiled steps (one writer), and the workloads'
 * {@code run --profile} trace (another). Both put {@code "otherData":{"aorta_trace_version":N,"pid_is":...}} first in
 * the file, so a reader sees it in the file's first bytes, and carry each device slice's kind, stream and device in
 * its {@code args} (their {@code cat} is for display: an activity class or kind, not a Kineto category).
 */
public final class AortaChromeTrace {
    /** The version of what the files carry for the analyzer; files written before this mark have none (version 0). */
    public static final int VERSION = 1;
    public static final String VERSION_FIELD = "aorta_trace_version";
    /** What a trace event's {@code pid} is: {@link #PID_RANK} or {@link #PID_DEVICE}. */
    public static final String PID_FIELD = "pid_is";
    public static final String PID_RANK = "rank";
    public static final String PID_DEVICE = "device";

    private AortaChromeTrace() {
    }
}
