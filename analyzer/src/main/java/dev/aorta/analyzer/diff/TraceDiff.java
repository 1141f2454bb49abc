package dev.aorta.analyzer.diff;

import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.KernelBreakdown;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The difference of two traces by name (docs/metrics.md#trace-diff): device activities by kernel (copy, memset)
 * name through {@link KernelBreakdown} and host API calls by name through {@link ApiStatistics}, each side's count
 * and total time per <b>rank-iteration</b> (divided by the number of (rank, iteration) windows of the side, so that a
 * trace of 3 steps compares with one of 5) or, when a side has no iterations, per rank. Names in B only are
 * <b>new</b>, names in A only <b>vanished</b>.
 *
 * <p>How much the two share decides whether a name-by-name list means anything: {@link Names#sharedTimeA()} is the
 * share of A's time spent in names B also has, and the same for B; two traces of different models share few names
 * and little time, and then the list would be a wall of new and vanished rows.
 */
public record TraceDiff(Side a, Side b, Names kernels, Names calls) {

    /** One trace: how many ranks and (rank, iteration) windows, and the divisor applied to its counts and times. */
    public record Side(int ranks, int rankIterations) {
        /** Per rank-iteration when the trace has iterations, else per rank. */
        public int divisor() {
            return Math.max(1, rankIterations > 0 ? rankIterations : ranks);
        }
    }

    /** One name: its count and total time per rank-iteration (or rank) on each side; 0 where the side lacks it. */
    public record Row(String name, double countA, double countB, double timeANs, double timeBNs) {
        public double deltaNs() {
            return timeBNs - timeANs;
        }

        public boolean isNew() {
            return countA == 0;
        }

        public boolean vanished() {
            return countB == 0;
        }
    }

    /**
     * The rows of one kind of name, most changed time first, and what the two sides share.
     *
     * @param sharedTimeA share of A's time in the names B also has, in [0, 1]; 1 when A has no time at all
     */
    public record Names(List<Row> rows, int namesA, int namesB, int shared, double totalANs, double totalBNs,
                        double sharedTimeA, double sharedTimeB) {
        public List<Row> added() {
            return rows.stream().filter(Row::isNew).toList();
        }

        public List<Row> vanished() {
            return rows.stream().filter(Row::vanished).toList();
        }
    }

    /** Below this share of either side's kernel time in shared names, the traces are too different to list. */
    public static final double LITTLE_IN_COMMON = 0.25;

    public static TraceDiff of(TraceSet a, TraceSet b) {
        Side sa = side(a);
        Side sb = side(b);
        return new TraceDiff(sa, sb, names(kernelTimes(a), kernelTimes(b), sa.divisor(), sb.divisor()),
                names(callTimes(a), callTimes(b), sa.divisor(), sb.divisor()));
    }

    /** Whether the kernels of A and B have so little in common that a list by name would say nothing. */
    public boolean littleInCommon() {
        return kernels.totalANs() > 0 && kernels.totalBNs() > 0
                && Math.min(kernels.sharedTimeA(), kernels.sharedTimeB()) < LITTLE_IN_COMMON;
    }

    private static Side side(TraceSet set) {
        int iterations = 0;
        for (RankTrace r : set.ranks()) {
            Set<Long> steps = new HashSet<>();
            for (Marker m : r.markers()) {
                if (m.kind() == Marker.Kind.ITERATION) {
                    steps.add(m.step());
                }
            }
            iterations += steps.size();
        }
        return new Side(set.ranks().size(), iterations);
    }

    /** name → {count, total ns}, over all ranks. */
    private static Map<String, long[]> kernelTimes(TraceSet set) {
        List<DeviceActivity> all = new ArrayList<>();
        set.ranks().forEach(r -> all.addAll(r.activities()));
        Map<String, long[]> out = new HashMap<>();
        KernelBreakdown.byName(all).forEach(e -> out.put(String.valueOf(e.name()), new long[] {e.count(), e.totalNs()}));
        return out;
    }

    private static Map<String, long[]> callTimes(TraceSet set) {
        List<ApiCall> all = new ArrayList<>();
        set.ranks().forEach(r -> all.addAll(r.apiCalls()));
        Map<String, long[]> out = new HashMap<>();
        ApiStatistics.byName(all).forEach(e -> out.put(e.name(), new long[] {e.count(), e.totalNs()}));
        return out;
    }

    private static Names names(Map<String, long[]> a, Map<String, long[]> b, int divA, int divB) {
        Set<String> all = new TreeSet<>(a.keySet());
        all.addAll(b.keySet());
        List<Row> rows = new ArrayList<>();
        double totalA = 0;
        double totalB = 0;
        double sharedA = 0;
        double sharedB = 0;
        int shared = 0;
        for (String name : all) {
            long[] x = a.getOrDefault(name, new long[2]);
            long[] y = b.getOrDefault(name, new long[2]);
            Row r = new Row(name, (double) x[0] / divA, (double) y[0] / divB, (double) x[1] / divA, (double) y[1] / divB);
            rows.add(r);
            totalA += r.timeANs();
            totalB += r.timeBNs();
            if (a.containsKey(name) && b.containsKey(name)) {
                shared++;
                sharedA += r.timeANs();
                sharedB += r.timeBNs();
            }
        }
        rows.sort(Comparator.comparingDouble((Row r) -> -Math.abs(r.deltaNs())).thenComparing(Row::name));
        return new Names(rows, a.size(), b.size(), shared, totalA, totalB, totalA == 0 ? 1 : sharedA / totalA,
                totalB == 0 ? 1 : sharedB / totalB);
    }
}
