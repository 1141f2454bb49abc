package dev.aorta.analyzer.clock;

import dev.aorta.analyzer.columns.ActivityColumns;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.analyzer.columns.Reordered;
import dev.aorta.core.metric.StableOrder;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
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
    /** The columns {@link #activities} are read from, and their index of each activity (null: the same index). */
    private final ActivityColumns columns;
    private final int[] columnIndex;
    private final ActivityClass[] classes;
    /** Each activity's start and end, read by every window's scans without building the activity. */
    private final long[] starts;
    private final long[] ends;
    private final ApiCallColumns apiCalls;
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
        ActivityColumns read = trace.activities();
        int[] mappable = IntStream.range(0, read.size()).filter(i -> mapper.canMap(read.clock(i))).toArray();
        int unmapped = read.size() - mappable.length;
        int[] byStart = StableOrder.byKey(mappable.length,
                k -> read.startNs(mappable[k]) + mapper.offset(read.clock(mappable[k])));
        this.classes = new ActivityClass[mappable.length];
        if (onClock(read.size(), read::clock)) {
            // nothing to shift: a view in order of start, so that a large trace is not held twice
            this.activities = new Reordered<>(read, byStart);
            this.columns = read;
            this.columnIndex = byStart;
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
            this.columns = mapped;
            this.columnIndex = null;
        }
        this.starts = new long[classes.length];
        this.ends = new long[classes.length];
        for (int i = 0; i < classes.length; i++) {
            starts[i] = columns.startNs(column(i));
            ends[i] = columns.endNs(column(i));
        }
        if (onClock(trace.apiCalls().size(), trace.apiCalls()::clock)) {
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
        markers.sort((a, b) -> Long.compare(a.startNs(), b.startNs()));
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
        jvmPauses.sort((a, b) -> Long.compare(a.startNs(), b.startNs()));
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

    /** Whether each of n records (their clocks by index) is on {@link #clock()}, so that mapping changes none. */
    private boolean onClock(int n, IntFunction<ClockDomain> clockOf) {
        for (int i = 0; i < n; i++) {
            if (clockOf.apply(i) != clock) {
                return false;
            }
        }
        return true;
    }

    /** The clock most device activities (else markers and API calls) are on; a tie goes to the first clock declared. */
    private static ClockDomain dominantClock(RankTrace trace) {
        int[] counts = new int[ClockDomain.values().length];
        ActivityColumns acts = trace.activities();
        for (int i = 0; i < acts.size(); i++) {
            counts[acts.clock(i).ordinal()]++;
        }
        if (acts.isEmpty()) {
            trace.markers().forEach(m -> counts[m.clock().ordinal()]++);
            ApiCallColumns calls = trace.apiCalls();
            for (int i = 0; i < calls.size(); i++) {
                counts[calls.clock(i).ordinal()]++;
            }
        }
        ClockDomain most = ClockDomain.HOST_MONOTONIC;
        int mostCount = 0;
        for (ClockDomain c : ClockDomain.values()) {
            if (counts[c.ordinal()] > mostCount) {
                most = c;
                mostCount = counts[c.ordinal()];
            }
        }
        return most;
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

    /** The start of activity {@code i} (as {@code activities().get(i).startNs()}). */
    public long startNs(int i) {
        return starts[i];
    }

    /** The end of activity {@code i} (as {@code activities().get(i).endNs()}). */
    public long endNs(int i) {
        return ends[i];
    }

    /** The correlation id of activity {@code i} (0: none), without building the activity. */
    public long correlationId(int i) {
        return columns.correlationId(column(i));
    }

    /** The enqueue time of activity {@code i} ({@link DeviceActivity#UNKNOWN} when not recorded), without building it. */
    public long queuedNs(int i) {
        return columns.queuedNs(column(i));
    }

    /** The stream of activity {@code i}, without building the activity. */
    public long stream(int i) {
        return columns.stream(column(i));
    }

    private int column(int i) {
        return columnIndex == null ? i : columnIndex[i];
    }

    public ActivityClass classOf(int activityIndex) {
        return classes[activityIndex];
    }

    public ApiCallColumns apiCalls() {
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
