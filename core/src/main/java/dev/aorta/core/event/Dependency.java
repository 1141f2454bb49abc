package dev.aorta.core.event;

/** An event recorded on one stream and waited for on another: the waiting stream cannot run past it. */
public record Dependency(long event, long recordStream, long recordNs, long waitStream, long waitNs,
                         ClockDomain clock) {

    /** This dependency moved by {@code ns} onto another clock ({@code this} when nothing changes). */
    public Dependency shifted(long ns, ClockDomain toClock) {
        return ns == 0 && toClock == clock ? this
                : new Dependency(event, recordStream, recordNs + ns, waitStream, waitNs + ns, toClock);
    }
}
