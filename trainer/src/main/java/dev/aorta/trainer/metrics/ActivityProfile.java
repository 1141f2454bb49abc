package dev.aorta.trainer.metrics;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.trainer.schedule.StreamRole;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A step's {@link StepProfile} from the device activity records (CUPTI) of that step alone. The executor brackets
 * each step with a marker on the compute stream that every other stream's first operation waits for, and one
 * that waits for every stream's last; so the step's device window is [earliest start, latest end] of its records,
 * and those two are its start and end markers. Each other record on one of the four streams becomes a range
 * tagged with its kernel or copy name; records on any other stream (a library's internal or the legacy stream)
 * are not the trainer's schedule and are left out, counted in the returned {@link Built#unmappedRecords()}.
 */
public final class ActivityProfile {
    /** NCCL's kernels are ordinary kernel records for CUPTI; the metrics library tells them apart by name. */
    private static final ActivityClassifier COLLECTIVES = ActivityClassifier.defaults();

    private ActivityProfile() {
    }

    /** The profile and the count of records on streams that are none of the four. */
    public record Built(StepProfile profile, int unmappedRecords) {
    }

    public static Built of(int index, List<DeviceActivity> records, Map<Long, StreamRole> rolesByStream) {
        if (records.isEmpty()) {
            throw new IllegalArgumentException("step " + index + " has no device activity records; expected at"
                    + " least its start and end markers");
        }
        DeviceActivity first = records.getFirst();
        DeviceActivity last = records.getFirst();
        for (DeviceActivity a : records) {
            if (a.startNs() < first.startNs()) {
                first = a;
            }
            if (a.endNs() > last.endNs()) {
                last = a;
            }
        }
        long t0 = first.startNs();
        List<DeviceRange> ranges = new ArrayList<>();
        int unmapped = 0;
        for (DeviceActivity a : records) {
            if (a == first || a == last) {
                continue;
            }
            StreamRole role = rolesByStream.get(a.stream());
            if (role == null) {
                unmapped++;
                continue;
            }
            ranges.add(new DeviceRange(role, a.name(), a.startNs() - t0, a.endNs() - t0,
                    COLLECTIVES.classify(a) == ActivityClass.COMMUNICATION, Map.of("kind", a.kind().name().toLowerCase(Locale.ROOT))));
        }
        ranges.sort((x, y) -> Long.compare(x.startNs(), y.startNs()));
        List<DeviceMarker> markers = List.of(
                new DeviceMarker(StreamRole.COMPUTE, "step_start", 0, Map.of()),
                new DeviceMarker(StreamRole.COMPUTE, "step_end", last.endNs() - t0, Map.of()));
        return new Built(new StepProfile(index, last.endNs() - t0, ranges, markers), unmapped);
    }
}
