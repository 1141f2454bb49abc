package dev.aorta.agent.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Interval arithmetic for the overlap metrics (docs/metrics.md): unions clipped to a window and their lengths. Intervals are {start, end}. */
public final class Intervals {
    private Intervals() {
    }

    /** The union of {@code intervals} clipped to [from, to), as sorted disjoint intervals. */
    public static List<long[]> union(List<long[]> intervals, long from, long to) {
        List<long[]> clipped = new ArrayList<>();
        for (long[] i : intervals) {
            long s = Math.max(i[0], from);
            long e = Math.min(i[1], to);
            if (e > s) {
                clipped.add(new long[] {s, e});
            }
        }
        clipped.sort(Comparator.comparingLong(i -> i[0]));
        List<long[]> out = new ArrayList<>();
        for (long[] i : clipped) {
            long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && i[0] <= last[1]) {
                last[1] = Math.max(last[1], i[1]);
            } else {
                out.add(new long[] {i[0], i[1]});
            }
        }
        return out;
    }

    public static long length(List<long[]> disjoint) {
        long sum = 0;
        for (long[] i : disjoint) {
            sum += i[1] - i[0];
        }
        return sum;
    }

    /** |U(a ∪ b ∪ ...)| clipped to the window. */
    @SafeVarargs
    public static long unionLength(long from, long to, List<long[]>... sets) {
        List<long[]> all = new ArrayList<>();
        for (List<long[]> s : sets) {
            all.addAll(s);
        }
        return length(union(all, from, to));
    }
}
