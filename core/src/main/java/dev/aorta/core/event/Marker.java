package dev.aorta.core.event;

/**
 * A host-side range: an iteration (training step / ProfilerStep) or a user range (NVTX/roctx-like).
 *
 * A capture window of the agent (it recorded only inside windows, see docs/agent.md) is a {@link Kind#CAPTURE}
 * range whose {@code step} is the window's index.
 *
 * @param step the iteration number for {@link Kind#ITERATION}, the window index for {@link Kind#CAPTURE}, else -1
 */
public record Marker(Kind kind, String name, int rank, long step, long startNs, long endNs, ClockDomain clock) {
    public enum Kind { ITERATION, RANGE, CAPTURE }

    /** This range moved by {@code ns} onto another clock and rank ({@code this} when nothing changes). */
    public Marker shifted(long ns, int toRank, ClockDomain toClock) {
        return ns == 0 && toRank == rank && toClock == clock ? this
                : new Marker(kind, name, toRank, step, startNs + ns, endNs + ns, toClock);
    }
}
