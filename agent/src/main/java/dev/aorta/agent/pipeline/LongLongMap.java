package dev.aorta.agent.pipeline;

/**
 * A map from long to long without boxing (open addressing, linear probing), for the decoder's per-row state
 * (event -> stream, handle -> stream): a {@code HashMap<Long, Long>} would allocate a key, a value and an entry
 * per row. Grows when half full; entries are never removed (handles are few and reused by the driver).
 */
final class LongLongMap {
    private long[] keys = new long[64];
    private long[] values = new long[64];
    private boolean[] used = new boolean[64];
    private int size;

    void put(long key, long value) {
        int i = slot(key);
        if (!used[i]) {
            if (2 * (size + 1) > keys.length) {
                grow();
                i = slot(key);
            }
            used[i] = true;
            keys[i] = key;
            size++;
        }
        values[i] = value;
    }

    boolean containsKey(long key) {
        return used[slot(key)];
    }

    long get(long key, long absent) {
        int i = slot(key);
        return used[i] ? values[i] : absent;
    }

    /** The slot holding {@code key}, or the free slot where it would go. */
    private int slot(long key) {
        int mask = keys.length - 1;
        int i = (int) mix(key) & mask;
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Spreads addresses, whose low bits are mostly alignment zeros, over the table (the murmur3 finalizer). */
    private static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        return k;
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldValues = values;
        boolean[] oldUsed = used;
        keys = new long[oldKeys.length * 2];
        values = new long[oldKeys.length * 2];
        used = new boolean[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }
}
