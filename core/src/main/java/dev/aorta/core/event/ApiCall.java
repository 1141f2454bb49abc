package dev.aorta.core.event;

import java.util.Map;

/**
 * A host-side call into a GPU library (a launch, copy, sync, collective...), timed on the host.
 *
 * @param stream native stream address, or 0 for the legacy default stream / not stream-bound
 * @param args   the arguments that matter (bytes, grid, op, dtype, count), by name
 */
public record ApiCall(String name, long thread, long stream, long startNs, long endNs, long correlationId,
                      int result, Map<String, Object> args, ClockDomain clock) {
    public ApiCall {
        args = Map.copyOf(args);
    }

    /** This call moved by {@code ns} onto another clock ({@code this} when nothing changes). */
    public ApiCall shifted(long ns, ClockDomain toClock) {
        return ns == 0 && toClock == clock ? this
                : new ApiCall(name, thread, stream, startNs + ns, endNs + ns, correlationId, result, args, toClock);
    }
}
