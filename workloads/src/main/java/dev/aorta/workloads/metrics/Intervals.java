package dev.aorta.workloads.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Lengths of unions of half-open time intervals [start, end) in nanoseconds. */
public final class Intervals {
    private Intervals() {
    }

    public record Interval(long start, long end) {
    }

    /** |U(intervals)|: overlapping time counted once. */
    public static long unionLength(List<Interval> intervals) {
        List<Interval> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingLong(Interval::start));
        long total = 0;
        long curStart = Long.MIN_VALUE;
        long curEnd = Long.MIN_VALUE;
        for (Interval i : sorted) {
            if (i.start() > curEnd) {
                if (curEnd > curStart) {
                    total += curEnd - curStart;
                }
                curStart = i.start();
                curEnd = i.end();
            } else if (i.end() > curEnd) {
                curEnd = i.end();
            }
        }
        if (curEnd > curStart) {
            total += curEnd - curStart;
        }
        return total;
    }
}
