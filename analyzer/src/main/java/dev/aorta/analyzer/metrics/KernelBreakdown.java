package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A window's kernel breakdown per class: the {@link dev.aorta.core.metric.KernelBreakdown} of the compute,
 * communication and memory activities starting in the window, the top N names of each class; and the same names
 * across ranks and windows ({@link #acrossRanks}), to see which rank is slow at which kernel.
 */
public final class KernelBreakdown {
    /** One name's statistics. {@code shareOfClass} is in [0,1]. */
    public record Entry(ActivityClass activityClass, String name, long count, long totalNs, double meanNs, long minNs,
                        long maxNs, double shareOfClass) {
    }

    /**
     * One kernel name across ranks: per rank its whole-trace count, time and share of that rank's time in the name's
     * class, and its time per window; {@code slowestRank} is the rank with the largest mean duration of the name (the
     * same kernel taking longer per call there; the lowest of the ranks sharing the largest mean), or -1 when every rank
     * that ran it has the same mean (or one rank ran it): then no rank is slower.
     */
    public record AcrossRanks(ActivityClass activityClass, String name, long totalNs, List<RankEntry> ranks,
                              int slowestRank) {
    }

    /** A name on one rank; {@code windowNs} holds its summed durations per window label, windows in order. */
    public record RankEntry(int rank, long count, long totalNs, double meanNs, double shareOfClass,
                            Map<String, Long> windowNs) {
    }

    private KernelBreakdown() {
    }

    /**
     * The {@code topN} kernel names by time summed over all ranks (of any class but OTHER), each with its
     * {@link RankEntry} on every rank that ran it, the windows being those measured ({@code windows}: steps, ranges or
     * the whole trace). An activity counts in a window when it starts in it, as in the per-window breakdown.
     */
    public static List<AcrossRanks> acrossRanks(List<RankTimeline> ranks, List<WindowReport> windows, int topN) {
        record Key(ActivityClass cls, String name) {
        }
        // each rank's names per class, as the per-window breakdown groups them
        Map<Key, Map<Integer, dev.aorta.core.metric.KernelBreakdown.Entry>> byName = new java.util.HashMap<>();
        for (RankTimeline t : ranks) {
            Map<ActivityClass, List<DeviceActivity>> byClass = new EnumMap<>(ActivityClass.class);
            List<DeviceActivity> acts = t.activities();
            for (int i = 0; i < acts.size(); i++) {
                if (t.classOf(i) != ActivityClass.OTHER) {
                    byClass.computeIfAbsent(t.classOf(i), k -> new ArrayList<>()).add(acts.get(i));
                }
            }
            byClass.forEach((cls, list) -> dev.aorta.core.metric.KernelBreakdown.byName(list).forEach(e ->
                    byName.computeIfAbsent(new Key(cls, e.name()), x -> new java.util.TreeMap<>()).put(t.rank(), e)));
        }
        List<Key> top = byName.entrySet().stream()
                .sorted((a, b) -> {
                    int byTime = Long.compare(totalNs(b.getValue()), totalNs(a.getValue()));
                    return byTime != 0 ? byTime : a.getKey().name().compareTo(b.getKey().name());
                })
                .limit(topN).map(Map.Entry::getKey).toList();
        // per window only for the names listed: a rank's activities times its windows is the cost
        Map<Key, Map<Integer, Map<String, Long>>> perWindow = new java.util.HashMap<>();
        java.util.Set<Key> listed = new java.util.HashSet<>(top);
        for (RankTimeline t : ranks) {
            List<Window> rankWindows = windows.stream().filter(r -> r.rank() == t.rank()).map(WindowReport::window)
                    .toList();
            List<DeviceActivity> acts = t.activities();
            for (int i = 0; i < acts.size(); i++) {
                DeviceActivity a = acts.get(i);
                Key k = new Key(t.classOf(i), a.name());
                if (!listed.contains(k)) {
                    continue;
                }
                for (Window w : rankWindows) {
                    if (WindowActivities.startsIn(a, w)) {
                        perWindow.computeIfAbsent(k, x -> new java.util.HashMap<>())
                                .computeIfAbsent(t.rank(), x -> new java.util.LinkedHashMap<>())
                                .merge(w.label(), a.durationNs(), Long::sum);
                    }
                }
            }
        }
        List<AcrossRanks> out = new ArrayList<>();
        for (Key k : top) {
            List<RankEntry> entries = new ArrayList<>();
            long total = 0;
            int slowest = -1;
            double slowestMean = -1;
            for (Map.Entry<Integer, dev.aorta.core.metric.KernelBreakdown.Entry> e : byName.get(k).entrySet()) {
                dev.aorta.core.metric.KernelBreakdown.Entry n = e.getValue();
                double mean = n.durationNs().mean();
                entries.add(new RankEntry(e.getKey(), n.count(), n.totalNs(), mean, n.share(),
                        perWindow.getOrDefault(k, Map.of()).getOrDefault(e.getKey(), Map.of())));
                total += n.totalNs();
                if (mean > slowestMean) {
                    slowestMean = mean;
                    slowest = e.getKey();
                }
            }
            boolean allEqual = entries.stream().allMatch(e -> e.meanNs() == entries.get(0).meanNs());
            out.add(new AcrossRanks(k.cls(), k.name(), total, entries, allEqual ? -1 : slowest));
        }
        return out;
    }

    /** A name's device time summed over the ranks. */
    private static long totalNs(Map<Integer, dev.aorta.core.metric.KernelBreakdown.Entry> byRank) {
        return byRank.values().stream().mapToLong(x -> x.totalNs()).sum();
    }

    public static List<Entry> of(RankTimeline t, ClassIntervals unions, Window w, int topN) {
        Map<ActivityClass, List<DeviceActivity>> byClass = new EnumMap<>(ActivityClass.class);
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && t.startNs(i) < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (WindowActivities.startsIn(a, w) && t.classOf(i) != ActivityClass.OTHER) {
                byClass.computeIfAbsent(t.classOf(i), k -> new ArrayList<>()).add(a);
            }
        }
        List<Entry> out = new ArrayList<>();
        byClass.forEach((cls, activities) -> dev.aorta.core.metric.KernelBreakdown.byName(activities).stream()
                .limit(topN)
                .forEach(e -> out.add(new Entry(cls, e.name(), e.count(), e.totalNs(), e.durationNs().mean(),
                        (long) e.durationNs().min(), (long) e.durationNs().max(), e.share()))));
        return out;
    }
}
