package dev.aorta.trainer.metrics;

import dev.aorta.trainer.schedule.StreamRole;

import java.util.Map;

/** A point on a stream (an event), in nanoseconds from the step's start event. */
public record DeviceMarker(StreamRole stream, String tag, long timeNs, Map<String, Object> metadata) {
    public DeviceMarker {
        metadata = Map.copyOf(metadata);
    }
}
