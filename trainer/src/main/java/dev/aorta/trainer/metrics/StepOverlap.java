package dev.aorta.trainer.metrics;

import dev.aorta.core.metric.IntervalSet;
import dev.aorta.trainer.schedule.StreamRole;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The {@code overlap} block of a metrics line, from the device ranges of one step, with AORTA's names and these
 * definitions (all in ms, U = union, |·| = length, everything clipped to [0, total]):
 * <ul>
 *   <li>per_stream_ms[s] = |U(ranges on s)|: the time stream s was busy;</li>
 *   <li>compute = U(non-collective ranges on the compute stream); comm = U(collective ranges on any stream);</li>
 *   <li>overlap_ms: compute_allreduce = |compute ∩ U(allreduce stream)|, compute_reducescatter =
 *       |compute ∩ U(reducescatter stream)|, compute_comm = |compute ∩ comm|,
 *       idle = total − |U(all ranges)|;</li>
 *   <li>active_segments: the maximal intervals in which the set of busy streams is constant and not empty;</li>
 *   <li>utilization[s] = per_stream_ms[s] / total.</li>
 * </ul>
 * Differences from the seed, on purpose: a stream stays active until its last open range ends (the seed's sweep
 * keeps a set and drops a stream at any range's end), compute is device busy time (not the span of the forward and
 * backward ranges), and compute_comm counts the all-gathers (the seed puts them on aux and misses them).
 */
public record StepOverlap(Map<StreamRole, Double> perStreamMs, double computeAllreduceMs,
                          double computeReducescatterMs, double computeCommMs, double idleMs,
                          List<Segment> activeSegments, Map<StreamRole, Double> utilization) {

    /** An interval with a constant, non-empty set of busy streams. */
    public record Segment(double startMs, double endMs, List<StreamRole> activeStreams) {
        public Segment {
            activeStreams = List.copyOf(activeStreams);
        }
    }

    public StepOverlap {
        perStreamMs = Map.copyOf(perStreamMs);
        activeSegments = List.copyOf(activeSegments);
        utilization = Map.copyOf(utilization);
    }

    public static StepOverlap of(List<DeviceRange> ranges, long totalNs) {
        Map<StreamRole, IntervalSet> busy = new EnumMap<>(StreamRole.class);
        for (StreamRole s : StreamRole.values()) {
            busy.put(s, union(ranges, r -> r.stream() == s, totalNs));
        }
        IntervalSet compute = union(ranges, r -> r.stream() == StreamRole.COMPUTE && !r.collective(), totalNs);
        IntervalSet comm = union(ranges, DeviceRange::collective, totalNs);
        IntervalSet any = union(ranges, r -> true, totalNs);

        Map<StreamRole, Double> perStream = new EnumMap<>(StreamRole.class);
        Map<StreamRole, Double> utilization = new EnumMap<>(StreamRole.class);
        busy.forEach((s, set) -> {
            perStream.put(s, ms(set.length()));
            utilization.put(s, totalNs > 0 ? (double) set.length() / totalNs : 0.0);
        });
        return new StepOverlap(perStream,
                ms(compute.intersect(busy.get(StreamRole.ALLREDUCE)).length()),
                ms(compute.intersect(busy.get(StreamRole.REDUCESCATTER)).length()),
                ms(compute.intersect(comm).length()),
                ms(Math.max(0, totalNs - any.length())),
                segments(busy), utilization);
    }

    private static IntervalSet union(List<DeviceRange> ranges, Predicate<DeviceRange> which,
                                     long totalNs) {
        List<DeviceRange> chosen = ranges.stream().filter(which).toList();
        long[] s = new long[chosen.size()];
        long[] e = new long[chosen.size()];
        for (int i = 0; i < chosen.size(); i++) {
            s[i] = chosen.get(i).startNs();
            e[i] = chosen.get(i).endNs();
        }
        return IntervalSet.union(s, e, chosen.size()).clip(0, totalNs);
    }

    private static List<Segment> segments(Map<StreamRole, IntervalSet> busy) {
        TreeSet<Long> cuts = new TreeSet<>();
        busy.values().forEach(set -> {
            for (int i = 0; i < set.size(); i++) {
                cuts.add(set.start(i));
                cuts.add(set.end(i));
            }
        });
        List<Segment> out = new ArrayList<>();
        long segStart = 0;
        List<StreamRole> segStreams = List.of();
        Long prev = null;
        for (long cut : cuts) {
            if (prev != null) {
                long from = prev;
                // every set's boundaries are cuts, so between two cuts a stream is busy throughout or not at all
                List<StreamRole> active = busy.entrySet().stream()
                        .filter(en -> en.getValue().lengthWithin(from, cut) == cut - from).map(Map.Entry::getKey)
                        .toList();
                if (!active.equals(segStreams)) {
                    if (!segStreams.isEmpty()) {
                        out.add(new Segment(ms(segStart), ms(from), segStreams));
                    }
                    segStart = from;
                    segStreams = active;
                }
            }
            prev = cut;
        }
        if (!segStreams.isEmpty()) {
            out.add(new Segment(ms(segStart), ms(prev), segStreams));
        }
        return out;
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }
}
