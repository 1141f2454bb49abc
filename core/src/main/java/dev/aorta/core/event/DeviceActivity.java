package dev.aorta.core.event;

/**
 * Work the device did: a kernel, a copy, a memset or a collective, with device timestamps.
 *
 * @param queuedNs    when the launch entered the device's queue, or {@link #UNKNOWN}
 * @param submittedNs when the launch was submitted to the hardware, or {@link #UNKNOWN}
 * @param bytes       bytes moved or set (copies, memsets, collectives), else 0
 */
public record DeviceActivity(ActivityKind kind, String name, int rank, int device, long stream,
                             long startNs, long endNs, long correlationId, long queuedNs, long submittedNs,
                             Dim3 grid, Dim3 block, long bytes, ClockDomain clock) {
    public static final long UNKNOWN = -1;

    public DeviceActivity {
        if (endNs < startNs) {
            throw new IllegalArgumentException("activity '" + name + "' ends before it starts: "
                    + startNs + " > " + endNs);
        }
    }

    public long durationNs() {
        return endNs - startNs;
    }

    /** This activity moved by {@code ns} onto another clock and rank ({@code this} when nothing changes). */
    public DeviceActivity shifted(long ns, int toRank, ClockDomain toClock) {
        if (ns == 0 && toRank == rank && toClock == clock) {
            return this;
        }
        return new DeviceActivity(kind, name, toRank, device, stream, startNs + ns, endNs + ns, correlationId,
                queuedNs == UNKNOWN ? UNKNOWN : queuedNs + ns, submittedNs == UNKNOWN ? UNKNOWN : submittedNs + ns,
                grid, block, bytes, toClock);
    }
}
