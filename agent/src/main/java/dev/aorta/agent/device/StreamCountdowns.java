package dev.aorta.agent.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * One launch countdown per stream, so that every Nth launch <em>of each stream</em> is sampled: with one countdown
 * for all streams, a loop over 16 streams with N = 16 would sample the same stream every time and leave the other
 * 15 without a single measurement (and any N sharing a factor with the stream count skews the same way).
 *
 * <p>Launch advice calls {@link #due} on every launch, from any thread, so it takes no lock and allocates nothing:
 * streams are keys of a fixed open-addressing table, claimed by compare-and-set; the countdowns themselves are
 * plain ints, decremented racily by design (two threads launching on one stream at once may sample a launch early
 * or late, which does not bias durations). A stream's first launch is sampled, so that a stream launching fewer than
 * N kernels is still measured. Streams beyond {@link #CAPACITY} share one countdown (the agent says so once).
 */
final class StreamCountdowns {
    static final int CAPACITY = 4096;
    /** No stream handle: streams are 0 (default), 0x1 (legacy), 0x2 (per-thread) or allocations. */
    private static final long EMPTY = -1L;
    private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int every;
    private final long[] keys = new long[CAPACITY];
    private final int[] countdowns = new int[CAPACITY];
    private int shared;
    private volatile boolean overflowed;

    StreamCountdowns(int every) {
        if (every < 1) {
            throw new IllegalArgumentException("sample every must be >= 1, got " + every);
        }
        this.every = every;
        Arrays.fill(keys, EMPTY);
    }

    /** True for the first launch of a stream and then every {@code every}th one. */
    boolean due(long stream) {
        int mask = CAPACITY - 1;
        int start = (int) mix(stream) & mask;
        int i = start;
        do {
            long key = (long) KEYS.getAcquire(keys, i);
            if (key == stream) {
                return tick(i);
            }
            if (key == EMPTY) {
                if (KEYS.compareAndSet(keys, i, EMPTY, stream)) {
                    return tick(i);
                }
                continue; // another thread claimed this slot just now: look at it again
            }
            i = (i + 1) & mask;
        } while (i != start);
        overflowed = true;
        if (--shared > 0) {
            return false;
        }
        shared = every;
        return true;
    }

    /** True once more than {@link #CAPACITY} streams were seen (the extra ones share a countdown). */
    boolean overflowed() {
        return overflowed;
    }

    private boolean tick(int slot) {
        if (--countdowns[slot] > 0) {
            return false;
        }
        countdowns[slot] = every;
        return true;
    }

    /** Spreads addresses, whose low bits are mostly alignment zeros, over the table (the murmur3 finalizer). */
    private static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        return k;
    }
}
