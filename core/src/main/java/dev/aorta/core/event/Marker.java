package dev.aorta.core.event;

/**
 * A host-side range: an iteration (training step / ProfilerStep) or a user range (NVTX/roctx-like).
 *
 * @param step the iteration number for {@link Kind#ITERATION}, -1 otherwise
 */
public record Marker(Kind kind, String name, int rank, long step, long startNs, long endNs, ClockDomain clock) {
    public enum Kind { ITERATION, RANGE }

    /** This range moved by {@code ns} onto another clock and rank ({@code this} when nothing changes). */
    public Marker shifted(long ns, int toRank, ClockDomain toClock) {
        return ns == 0 && toRank == rank && toClock == clock ? this
                : new Marker(kind, name, toRank, step, startNs + ns, endNs + ns, toClock);
    }
}
