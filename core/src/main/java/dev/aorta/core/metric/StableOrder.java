package dev.aorta.core.metric;

import java.util.function.IntToLongFunction;

/**
 * The order of n records by a long key, equal keys in their original order (what {@code List.sort} with a
 * key comparator gives), computed on primitive arrays: a bottom-up merge sort of record indices.
 */
public final class StableOrder {
    private StableOrder() {
    }

    /** Indices 0..n-1 sorted by {@code key}, stable. */
    public static int[] byKey(int n, IntToLongFunction key) {
        long[] keys = new long[n];
        int[] order = new int[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            keys[i] = key.applyAsLong(i);
            order[i] = i;
            sorted &= i == 0 || keys[i - 1] <= keys[i];
        }
        if (sorted) {
            return order;  // records often arrive in order: no work then
        }
        int[] buffer = new int[n];
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n - width; lo += 2 * width) {
                merge(keys, order, buffer, lo, lo + width, Math.min(lo + 2 * width, n));
            }
        }
        return order;
    }

    /** Merges the sorted runs [lo, mid) and [mid, hi) of {@code order}; on equal keys the left run comes first. */
    private static void merge(long[] keys, int[] order, int[] buffer, int lo, int mid, int hi) {
        if (keys[order[mid - 1]] <= keys[order[mid]]) {
            return;  // already in order
        }
        System.arraycopy(order, lo, buffer, lo, hi - lo);
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
            if (j >= hi || (i < mid && keys[buffer[i]] <= keys[buffer[j]])) {
                order[k] = buffer[i++];
            } else {
                order[k] = buffer[j++];
            }
        }
    }
}
