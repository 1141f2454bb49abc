package dev.aorta.core.event;

/**
 * A host-side range: an iteration (training step / ProfilerStep) or a user range (NVTX/roctx-like).
 *
 * @param step the iteration number for {@link Kind#ITERATION}, -1 otherwise
 */
public record Marker(Kind kind, String name, int rank, long step, long startNs, long endNs, ClockDomain clock) {
    public enum Kind { ITERATION, RANGE }
}
