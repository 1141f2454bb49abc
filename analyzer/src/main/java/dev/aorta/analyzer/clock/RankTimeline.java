package dev.aorta.analyzer.clock;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.trace.JvmPause;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One rank's records on one clock, ready for analysis: the reference clock is the one most device activities were
 * read in; every other record is mapped onto it through the rank's anchors, or left out with a warning when no
 * anchor connects its clock. Activities are sorted by start and classified once.
 */
public final class RankTimeline {
    private final int rank;
    private final int worldSize;
    private final String source;
    private final ClockDomain clock;
    private final List<DeviceActivity> activities;
    private final ActivityClass[] classes;
    private final List<ApiCall> apiCalls = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private final List<Dependency> dependencies = new ArrayList<>();
    private final List<JvmPause> jvmPauses = new ArrayList<>();
    private final Map<Long, String> streamLabels = new HashMap<>();
    private final List<String> warnings = new ArrayList<>();

    public RankTimeline(RankTrace trace, ActivityClassifier classifier) {
        this.rank = trace.rank();
        this.worldSize = trace.worldSize();
        this.source = trace.source();
        this.clock = dominantClock(trace);
        ClockMapper mapper = new ClockMapper(clock, trace.anchors());
        List<DeviceActivity> mapped = new ArrayList<>(trace.activities().size());
        int unmapped = 0;
        for (DeviceActivity a : trace.activities()) {
            if (!mapper.canMap(a.clock())) {
                unmapped++;
                continue;
            }
            mapped.add(a.shifted(mapper.offset(a.clock()), a.rank(), clock));
        }
        mapped.sort(Comparator.comparingLong(DeviceActivity::startNs));
        this.activities = mapped;
        this.classes = new ActivityClass[mapped.size()];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = classifier.classify(mapped.get(i));
        }
        for (ApiCall c : trace.apiCalls()) {
            if (mapper.canMap(c.clock())) {
                long d = mapper.offset(c.clock());
                apiCalls.add(d == 0 ? c : c.shifted(d, clock));  // an unshifted call keeps its own clock tag
            } else {
                unmapped++;
            }
        }
        for (Marker m : trace.markers()) {
            if (mapper.canMap(m.clock())) {
                markers.add(m.shifted(mapper.offset(m.clock()), rank, clock));
            } else {
                unmapped++;
            }
        }
        markers.sort(Comparator.comparingLong(Marker::startNs));
        for (Dependency x : trace.dependencies()) {
            if (mapper.canMap(x.clock())) {
                dependencies.add(x.shifted(mapper.offset(x.clock()), clock));
            }
        }
        int pausesUnmapped = 0;
        for (JvmPause p : trace.jvmPauses()) {
            if (mapper.canMap(p.clock())) {
                jvmPauses.add(p.shifted(mapper.offset(p.clock()), clock));
            } else {
                pausesUnmapped++;
            }
        }
        jvmPauses.sort(Comparator.comparingLong(JvmPause::startNs));
        for (StreamInfo s : trace.streams()) {
            if (s.role() != null) {
                streamLabels.put(s.id(), s.role());
            }
        }
        if (unmapped > 0) {
            warnings.add("rank " + rank + ": left out " + unmapped + " records whose clock has no anchor to "
                    + clock.tag());
        }
        if (pausesUnmapped > 0) {
            warnings.add("rank " + rank + ": " + pausesUnmapped + " JVM pauses cannot be placed on the " + clock.tag()
                    + " clock (no anchor), so JVM attribution is incomplete");
        }
    }

    private static ClockDomain dominantClock(RankTrace trace) {
        Map<ClockDomain, Integer> counts = new EnumMap<>(ClockDomain.class);
        trace.activities().forEach(a -> counts.merge(a.clock(), 1, Integer::sum));
        if (counts.isEmpty()) {
            trace.markers().forEach(m -> counts.merge(m.clock(), 1, Integer::sum));
            trace.apiCalls().forEach(c -> counts.merge(c.clock(), 1, Integer::sum));
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(ClockDomain.HOST_MONOTONIC);
    }

    public int rank() {
        return rank;
    }

    /** The number of ranks the trace declares for its run, or 0 when it does not say. */
    public int worldSize() {
        return worldSize;
    }

    public String source() {
        return source;
    }

    public ClockDomain clock() {
        return clock;
    }

    /** Device activities on {@link #clock()}, sorted by start. */
    public List<DeviceActivity> activities() {
        return activities;
    }

    public ActivityClass classOf(int activityIndex) {
        return classes[activityIndex];
    }

    public List<ApiCall> apiCalls() {
        return apiCalls;
    }

    /** Markers sorted by start. */
    public List<Marker> markers() {
        return markers;
    }

    public List<Dependency> dependencies() {
        return dependencies;
    }

    public List<JvmPause> jvmPauses() {
        return jvmPauses;
    }

    /** The label of a stream ("comm", "compute", ...) when its creator gave one, else its number. */
    public String streamLabel(long stream) {
        return streamLabels.getOrDefault(stream, Long.toString(stream));
    }

    public List<String> warnings() {
        return warnings;
    }

    /** Start of the first device activity, or 0 when there is none. */
    public long firstStart() {
        return activities.isEmpty() ? 0 : activities.get(0).startNs();
    }

    /** End of the last-ending device activity, or 0 when there is none. */
    public long lastEnd() {
        long end = Long.MIN_VALUE;
        for (DeviceActivity a : activities) {
            end = Math.max(end, a.endNs());
        }
        return activities.isEmpty() ? 0 : end;
    }
}
