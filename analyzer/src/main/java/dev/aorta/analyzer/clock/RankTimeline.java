package dev.aorta.analyzer.clock;

import dev.aorta.analyzer.columns.ActivityColumns;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.analyzer.columns.Reordered;
import dev.aorta.analyzer.columns.StableOrder;
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
import java.util.function.Function;
import java.util.stream.IntStream;

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
    private final List<ApiCall> apiCalls;
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
        // the records whose clock maps, in order of start once shifted (equal starts in the order read)
        List<DeviceActivity> read = trace.activities();
        int[] mappable = IntStream.range(0, read.size()).filter(i -> mapper.canMap(read.get(i).clock())).toArray();
        int unmapped = read.size() - mappable.length;
        int[] byStart = StableOrder.byKey(mappable.length, k -> {
            DeviceActivity a = read.get(mappable[k]);
            return a.startNs() + mapper.offset(a.clock());
        });
        this.classes = new ActivityClass[mappable.length];
        if (onClock(read, DeviceActivity::clock)) {
            // nothing to shift: a view in order of start, so that a large trace is not held twice
            this.activities = new Reordered<>(read, byStart);
            for (int k = 0; k < classes.length; k++) {
                classes[k] = classifier.classify(activities.get(k));
            }
        } else {
            ActivityColumns mapped = new ActivityColumns();
            for (int k : byStart) {
                DeviceActivity a = read.get(mappable[k]);
                DeviceActivity shifted = a.shifted(mapper.offset(a.clock()), a.rank(), clock);
                classes[mapped.size()] = classifier.classify(shifted);
                mapped.add(shifted);
            }
            this.activities = mapped;
        }
        if (onClock(trace.apiCalls(), ApiCall::clock)) {
            this.apiCalls = trace.apiCalls();  // nothing to shift: shared, not copied
        } else {
            this.apiCalls = new ApiCallColumns();
            for (ApiCall c : trace.apiCalls()) {
                if (mapper.canMap(c.clock())) {
                    long d = mapper.offset(c.clock());
                    apiCalls.add(d == 0 ? c : c.shifted(d, clock));  // an unshifted call keeps its own clock tag
                } else {
                    unmapped++;
                }
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

    /** Whether every record is on {@link #clock()}, so that mapping changes none. */
    private <T> boolean onClock(List<T> records, Function<T, ClockDomain> clockOf) {
        for (T r : records) {
            if (clockOf.apply(r) != clock) {
                return false;
            }
        }
        return true;
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
