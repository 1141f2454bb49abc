package dev.aorta.workloads.launchoverhead;

import java.util.List;

/** What {@code aorta launch-overhead} was asked to do. */
public record LaunchOverheadOptions(CodebookShape shape, List<Pattern> patterns, double seconds, int warmupSteps,
                                    int device, long seed) {
    public LaunchOverheadOptions {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new IllegalArgumentException("--seconds must be a positive number of seconds, got " + seconds);
        }
        if (warmupSteps < 0) {
            throw new IllegalArgumentException("--warmup-steps must be 0 or more, got " + warmupSteps);
        }
        if (device < 0) {
            throw new IllegalArgumentException("--device must be 0 or more, got " + device);
        }
        patterns = List.copyOf(patterns);
    }
}
