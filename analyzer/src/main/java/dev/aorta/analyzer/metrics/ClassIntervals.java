package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.core.event.DeviceActivity;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The unions a rank's metrics are computed from, built once per rank and clipped per window:
 * C = U(compute), M = U(communication), Y = U(memory), and U(activities) of each stream.
 */
public final class ClassIntervals {
    private final IntervalSet compute;
    private final IntervalSet communication;
    private final IntervalSet memory;
    private final Map<Long, IntervalSet> perStream;
    private final long longestActivityNs;

    public ClassIntervals(RankTimeline t) {
        List<DeviceActivity> acts = t.activities();
        IntervalSet.SortedBuilder c = new IntervalSet.SortedBuilder();
        IntervalSet.SortedBuilder m = new IntervalSet.SortedBuilder();
        IntervalSet.SortedBuilder y = new IntervalSet.SortedBuilder();
        Map<Long, IntervalSet.SortedBuilder> streams = new TreeMap<>();
        long longest = 0;
        for (int i = 0; i < acts.size(); i++) {
            DeviceActivity a = acts.get(i);
            ActivityClass k = t.classOf(i);
            switch (k) {
                case COMPUTE -> c.add(a.startNs(), a.endNs());
                case COMMUNICATION -> m.add(a.startNs(), a.endNs());
                case MEMORY -> y.add(a.startNs(), a.endNs());
                case OTHER -> {
                    continue;
                }
            }
            streams.computeIfAbsent(a.stream(), s -> new IntervalSet.SortedBuilder()).add(a.startNs(), a.endNs());
            longest = Math.max(longest, a.durationNs());
        }
        this.compute = c.build();
        this.communication = m.build();
        this.memory = y.build();
        this.perStream = new TreeMap<>();
        streams.forEach((s, b) -> perStream.put(s, b.build()));
        this.longestActivityNs = longest;
    }

    public IntervalSet compute() {
        return compute;
    }

    public IntervalSet communication() {
        return communication;
    }

    public IntervalSet memory() {
        return memory;
    }

    /** U(activities) per stream, streams in ascending order. */
    public Map<Long, IntervalSet> perStream() {
        return perStream;
    }

    /** The longest activity, so that the activities overlapping a window can be found from a sorted list. */
    public long longestActivityNs() {
        return longestActivityNs;
    }
}
