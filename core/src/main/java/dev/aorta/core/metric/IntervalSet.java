package dev.aorta.core.metric;

import java.util.Arrays;

/**
 * A union of half-open time intervals [start, end), kept as sorted, disjoint, non-touching pairs in primitive arrays.
 * The algebra every overlap metric (docs/metrics.md) is written in, in the agent, the analyzer and the workloads alike:
 * union U(·), intersection ∩, difference −, clipping to a window and total length |·|. Immutable; every operation
 * after the first union is a linear merge.
 */
public final class IntervalSet {
    public static final IntervalSet EMPTY = new IntervalSet(new long[0], new long[0], 0);

    private final long[] starts;
    private final long[] ends;
    private final int size;

    private IntervalSet(long[] starts, long[] ends, int size) {
        this.starts = starts;
        this.ends = ends;
        this.size = size;
    }

    /** One interval (empty when {@code end <= start}). */
    public static IntervalSet of(long start, long end) {
        return end > start ? new IntervalSet(new long[] {start}, new long[] {end}, 1) : EMPTY;
    }

    /**
     * U(intervals): the union of the first {@code n} intervals, given in any order (the arrays are not changed).
     * Starts and ends are sorted apart, as primitives: a point is covered while more intervals have started than
     * ended, whichever start belongs to which end, so the pairs need not be sorted together (no boxing, two
     * array copies). Empty intervals are left out first, since they would pair a start with an earlier end.
     */
    public static IntervalSet union(long[] starts, long[] ends, int n) {
        long[] s = new long[n];
        long[] e = new long[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (ends[i] > starts[i]) {
                s[m] = starts[i];
                e[m] = ends[i];
                m++;
            }
        }
        Arrays.sort(s, 0, m);
        Arrays.sort(e, 0, m);
        long[] us = new long[m];
        long[] ue = new long[m];
        int k = 0;
        int depth = 0;
        int j = 0;
        for (int i = 0; i < m; i++) {
            while (j < m && e[j] < s[i]) {  // only ends strictly before this start close: touching intervals merge
                if (--depth == 0) {
                    ue[k - 1] = e[j];
                }
                j++;
            }
            if (depth++ == 0) {
                us[k++] = s[i];
            }
        }
        if (m > 0) {
            ue[k - 1] = e[m - 1];
        }
        return new IntervalSet(us, ue, k);
    }

    /** A builder for unions of intervals that arrive sorted by start (the common case: activities sorted once). */
    public static final class SortedBuilder {
        private long[] s = new long[16];
        private long[] e = new long[16];
        private int k;

        public SortedBuilder add(long start, long end) {
            if (end <= start) {
                return this;
            }
            if (k > 0 && start < s[k - 1]) {
                throw new IllegalArgumentException("intervals must arrive sorted by start");
            }
            if (k > 0 && start <= e[k - 1]) {
                e[k - 1] = Math.max(e[k - 1], end);
            } else {
                if (k == s.length) {
                    s = Arrays.copyOf(s, k * 2);
                    e = Arrays.copyOf(e, k * 2);
                }
                s[k] = start;
                e[k] = end;
                k++;
            }
            return this;
        }

        public IntervalSet build() {
            return new IntervalSet(s, e, k);
        }
    }

    public int size() {
        return size;
    }

    public long start(int i) {
        return starts[i];
    }

    public long end(int i) {
        return ends[i];
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** |·|: the total length. */
    public long length() {
        long total = 0;
        for (int i = 0; i < size; i++) {
            total += ends[i] - starts[i];
        }
        return total;
    }

    /** This set clipped to [from, to); found by binary search, so clipping to many windows stays cheap. */
    public IntervalSet clip(long from, long to) {
        if (to <= from || size == 0) {
            return EMPTY;
        }
        int first = firstEndingAfter(from);
        int last = first;
        while (last < size && starts[last] < to) {
            last++;
        }
        int n = 0;
        long[] s = new long[last - first];  // the window's intervals only: a set is clipped to every window
        long[] e = new long[s.length];
        for (int i = first; i < last; i++) {
            s[n] = Math.max(starts[i], from);
            e[n] = Math.min(ends[i], to);
            n++;
        }
        return new IntervalSet(s, e, n);
    }

    /** The length of this set inside [from, to), without building the clipped set. */
    public long lengthWithin(long from, long to) {
        long total = 0;
        for (int i = firstEndingAfter(from); i < size && starts[i] < to; i++) {
            total += Math.min(ends[i], to) - Math.max(starts[i], from);
        }
        return Math.max(0, total);
    }

    private int firstEndingAfter(long t) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    public IntervalSet union(IntervalSet other) {
        SortedBuilder b = new SortedBuilder();
        int i = 0;
        int j = 0;
        while (i < size || j < other.size) {
            if (j >= other.size || (i < size && starts[i] <= other.starts[j])) {
                b.add(starts[i], ends[i]);
                i++;
            } else {
                b.add(other.starts[j], other.ends[j]);
                j++;
            }
        }
        return b.build();
    }

    public IntervalSet intersect(IntervalSet other) {
        SortedBuilder b = new SortedBuilder();
        int i = 0;
        int j = 0;
        while (i < size && j < other.size) {
            long s = Math.max(starts[i], other.starts[j]);
            long e = Math.min(ends[i], other.ends[j]);
            if (s < e) {
                b.add(s, e);
            }
            if (ends[i] < other.ends[j]) {
                i++;
            } else {
                j++;
            }
        }
        return b.build();
    }

    /** This set less {@code other}. */
    public IntervalSet minus(IntervalSet other) {
        SortedBuilder b = new SortedBuilder();
        int j = 0;
        for (int i = 0; i < size; i++) {
            long s = starts[i];
            long e = ends[i];
            while (j < other.size && other.ends[j] <= s) {
                j++;
            }
            int k = j;
            while (k < other.size && other.starts[k] < e) {
                if (other.starts[k] > s) {
                    b.add(s, other.starts[k]);
                }
                s = Math.max(s, other.ends[k]);
                k++;
            }
            if (s < e) {
                b.add(s, e);
            }
        }
        return b.build();
    }

    /** The gaps of this set inside [from, to): the complement, clipped. */
    public IntervalSet gapsWithin(long from, long to) {
        return of(from, to).minus(this);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            sb.append(i == 0 ? "" : ", ").append('[').append(starts[i]).append(',').append(ends[i]).append(')');
        }
        return sb.append(']').toString();
    }
}
