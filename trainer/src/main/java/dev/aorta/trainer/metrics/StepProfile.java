package dev.aorta.trainer.metrics;

import java.util.List;

/**
 * What the device did in one step: the {@code profile} object of a metrics line. {@code totalNs} is the device
 * time from the step's start event to its end event.
 */
public record StepProfile(int index, long totalNs, List<DeviceRange> ranges, List<DeviceMarker> markers) {
    public StepProfile {
        ranges = List.copyOf(ranges);
        markers = List.copyOf(markers);
    }

    public StepOverlap overlap() {
        return StepOverlap.of(ranges, totalNs);
    }
}
