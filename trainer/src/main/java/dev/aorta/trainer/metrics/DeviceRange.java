package dev.aorta.trainer.metrics;

import dev.aorta.trainer.schedule.StreamRole;

import java.util.Map;

/**
 * One operation's execution on the device, in nanoseconds from the step's start event: what the executor measures
 * (events recorded around the operation on its stream, or CUPTI's kernel times). {@code collective} marks
 * communication, whichever stream it ran on, so that collectives run on the compute stream do not count as
 * compute.
 */
public record DeviceRange(StreamRole stream, String tag, long startNs, long endNs, boolean collective,
                          Map<String, Object> metadata) {
    public DeviceRange {
        if (endNs < startNs) {
            throw new IllegalArgumentException("range " + tag + " on " + stream.label() + " ends (" + endNs
                    + " ns) before it starts (" + startNs + " ns)");
        }
        metadata = Map.copyOf(metadata);
    }
}
