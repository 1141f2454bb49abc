package dev.aorta.core.event;

/** An event recorded on one stream and waited for on another: the waiting stream cannot run past it. */
public record Dependency(long event, long recordStream, long recordNs, long waitStream, long waitNs,
                         ClockDomain clock) {
}
