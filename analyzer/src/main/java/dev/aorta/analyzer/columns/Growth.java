package dev.aorta.analyzer.columns;

import java.util.Arrays;

/** The capacity a column grows to: by half again, so that a column of n records copies about 3n values in all. */
final class Growth {
    private Growth() {
    }

    private static final int MAX = Integer.MAX_VALUE - 8;  // the largest array every JVM allocates

    static int next(int capacity) {
        if (capacity >= MAX) {
            throw new OutOfMemoryError("more than " + MAX + " records of one kind");
        }
        return (int) Math.min(MAX, Math.max(16L, capacity + (capacity >> 1)));
    }

    static long[] grow(long[] a, int capacity) {
        return a == null ? null : Arrays.copyOf(a, capacity);
    }

    static int[] grow(int[] a, int capacity) {
        return Arrays.copyOf(a, capacity);
    }

    static byte[] grow(byte[] a, int capacity) {
        return Arrays.copyOf(a, capacity);
    }
}
