package dev.aorta.analyzer.trace;

import dev.aorta.core.event.ClockDomain;

/**
 * A stop of the Java application recorded by JFR: a garbage-collection pause or a safepoint.
 *
 * @param cause what stopped the JVM, e.g. "G1 Young Generation" or "safepoint"
 */
public record JvmPause(Kind kind, String cause, long startNs, long endNs, ClockDomain clock) {
    public enum Kind { GC, SAFEPOINT }

    /** This pause moved by {@code ns} onto another clock ({@code this} when nothing changes). */
    public JvmPause shifted(long ns, ClockDomain toClock) {
        return ns == 0 && toClock == clock ? this : new JvmPause(kind, cause, startNs + ns, endNs + ns, toClock);
    }
}
