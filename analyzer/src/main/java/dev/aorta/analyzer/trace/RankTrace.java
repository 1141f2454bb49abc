package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.columns.ActivityColumns;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Everything read for one rank, from one or more files (agent records and device traces of the same run). */
public final class RankTrace {
    private final int rank;
    private int worldSize;
    private final Set<String> sources = new LinkedHashSet<>();
    private ActivityColumns activities = new ActivityColumns();
    private ApiCallColumns apiCalls = new ApiCallColumns();
    private final List<Marker> markers = new ArrayList<>();
    private final List<StreamInfo> streams = new ArrayList<>();
    private final List<Dependency> dependencies = new ArrayList<>();
    private final List<ClockAnchor> anchors = new ArrayList<>();
    private final List<JvmPause> jvmPauses = new ArrayList<>();
    private final List<SourceSpan> sourceSpans = new ArrayList<>();

    public RankTrace(int rank) {
        this.rank = rank;
    }

    public int rank() {
        return rank;
    }

    public int worldSize() {
        return worldSize;
    }

    void worldSize(int worldSize) {
        this.worldSize = Math.max(this.worldSize, worldSize);
    }

    /** The files this rank was read from, joined by commas. */
    public String source() {
        return String.join(",", sources);
    }

    void addSource(String source) {
        sources.add(source);
    }

    public ActivityColumns activities() {
        return activities;
    }

    /** Takes a file's activities as this rank's, which has none yet: a rank read from one file is not copied. */
    void takeActivities(ActivityColumns read) {
        if (!activities.isEmpty()) {
            throw new IllegalStateException("rank " + rank + " already has activities");
        }
        activities = read;
    }

    /** Takes a file's API calls as this rank's, which has none yet. */
    void takeApiCalls(ApiCallColumns read) {
        if (!apiCalls.isEmpty()) {
            throw new IllegalStateException("rank " + rank + " already has API calls");
        }
        apiCalls = read;
    }

    public ApiCallColumns apiCalls() {
        return apiCalls;
    }

    public List<Marker> markers() {
        return markers;
    }

    public List<StreamInfo> streams() {
        return streams;
    }

    public List<Dependency> dependencies() {
        return dependencies;
    }

    public List<ClockAnchor> anchors() {
        return anchors;
    }

    public List<JvmPause> jvmPauses() {
        return jvmPauses;
    }

    /** The time each file covers on each of its clocks (as merged: after any shift onto the rank's anchors). */
    public List<SourceSpan> sourceSpans() {
        return sourceSpans;
    }
}
