package dev.aorta.core.event;

/** The same instant read on two clocks, so that times in {@code from} can be mapped onto {@code to}. */
public record ClockAnchor(ClockDomain from, long fromNs, ClockDomain to, long toNs) {
    /** Maps a timestamp of the {@code from} clock onto the {@code to} clock (same rate assumed). */
    public long map(long ns) {
        return ns - fromNs + toNs;
    }
}
