package dev.aorta.analyzer.metrics;

/**
 * A time window W of one rank on its timeline's clock: the whole trace, an iteration (ProfilerStep, agent
 * iteration, AORTA step) or a user range (NVTX/roctx-like).
 *
 * @param label "whole", "step 12", or the range's name
 * @param step  the iteration number for {@link Kind#STEP}, else -1
 */
public record Window(String label, Kind kind, long step, long startNs, long endNs) {
    public enum Kind { WHOLE, STEP, RANGE }

    public long lengthNs() {
        return endNs - startNs;
    }
}
