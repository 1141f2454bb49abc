package dev.aorta.agent.recorder;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One thread's ring of call records: fixed-width rows of primitives, written only by the owning thread
 * and read only by the drain thread. No locks: the writer publishes {@code head} with release
 * semantics after filling a row, the reader publishes {@code tail} after consuming rows. When the ring
 * is full the record is dropped and counted; the writer never waits.
 *
 * <p>The two threads share as few cache lines as possible: {@code head} (with the drop count) and {@code tail}
 * lie 128 bytes apart (a line and its adjacent-line prefetch), the writer reads {@code tail} only when its last
 * look says the ring may be full, and the reader takes published rows in batches of up to {@link #BATCH}, read
 * {@code head} once per batch and frees each batch with one store.
 */
public final class CallBuffer {
    /**
     * Longs per record: id and result (one long, see {@link #id} and {@link #result}), start, end, stream, a0..a7.
     * 96 bytes, not padded to 128: every row the writer fills is a cache line or two it must own again after the drain
     * thread read them, which is most of what a row costs a real launch, so a row is as few lines as it can be.
     */
    public static final int WIDTH = 12;
    public static final int ID_RESULT = 0, START = 1, END = 2, STREAM = 3, ARG0 = 4;

    /** Rows the writer claims for its own cache in one go, a batch ahead of those it fills ({@link #claimAhead}). */
    static final int AHEAD = 16;
    /** Longs in a cache line. */
    private static final int LINE = 8;

    /** Rows the drain thread takes before freeing them with one store. */
    static final int BATCH = 1024;
    /** Longs between the shared counters: 128 bytes. */
    private static final int PAD = 16;
    /** {@code counters[HEAD]}: next row the writer fills; written by the owner only (release), read by the drain thread (acquire). */
    private static final int HEAD = PAD;
    /** {@code counters[DROPPED]}: records lost because the ring was full; written by the owner only. */
    private static final int DROPPED = PAD + 1;
    /** {@code counters[TAIL]}: next row the drain thread reads; written by the drain thread only (release). */
    private static final int TAIL = 3 * PAD;
    private static final VarHandle COUNTER = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] rows;
    private final int mask;
    private final long capacity;
    private final long threadId;
    private final WeakReference<Thread> owner;
    private final int index;

    /** {@link #HEAD}, {@link #DROPPED} and {@link #TAIL}, each pair of sides on its own cache lines. */
    private final long[] counters = new long[4 * PAD];
    /** The tail the writer last read: the ring has at least this much room, so it need not look again until full. */
    private long tailSeen;

    CallBuffer(int capacity, Thread owner, int index) {
        this.rows = new long[capacity * WIDTH];
        this.mask = capacity - 1;
        this.capacity = capacity;
        this.threadId = owner.getId();
        this.owner = new WeakReference<>(owner);
        this.index = index;
    }

    /** Appends one record, or counts it as dropped when the ring is full. Owner thread only. */
    void put(int id, long start, long end, long stream, int result,
             long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7) {
        long[] c = counters;
        long h = c[HEAD];
        if (h - tailSeen >= capacity) {
            tailSeen = (long) COUNTER.getAcquire(c, TAIL);
            if (h - tailSeen >= capacity) {
                COUNTER.setRelease(c, DROPPED, c[DROPPED] + 1);
                return;
            }
        }
        long[] r = rows;
        int b = (int) (h & mask) * WIDTH;
        r[b] = (id & 0xFFFF_FFFFL) | (long) result << 32;
        r[b + 1] = start;
        r[b + 2] = end;
        r[b + 3] = stream;
        r[b + 4] = a0;
        r[b + 5] = a1;
        r[b + 6] = a2;
        r[b + 7] = a3;
        r[b + 8] = a4;
        r[b + 9] = a5;
        r[b + 10] = a6;
        r[b + 11] = a7;
        if ((h & (AHEAD - 1)) == 0) {
            claimAhead(h);
        }
        COUNTER.setRelease(c, HEAD, h + 1);
    }

    /**
     * Writes one long into every cache line of the next batch of {@link #AHEAD} rows, {@code h + AHEAD} up to
     * {@code h + 2 * AHEAD}, when the drain thread has read them all. A row's lines were last read by the drain thread,
     * so writing them first makes the writer's core fetch them back, and the driver call that follows a launch's
     * record waits for that fetch at its first fence: once per row, a cross-core round trip on each launch. Claimed
     * here, the 24 lines are fetched together, one wait per 16 records, and the rows are later written into the
     * writer's own cache. Rows the drain thread may still read are left alone, so nothing it reads is overwritten.
     */
    private void claimAhead(long h) {
        long last = h + 2 * AHEAD;
        if (last - tailSeen > capacity) {
            tailSeen = (long) COUNTER.getAcquire(counters, TAIL);
            if (last - tailSeen > capacity) {
                return;
            }
        }
        long[] r = rows;
        int from = (int) ((h + AHEAD) & mask) * WIDTH;
        for (int k = from, end = from + AHEAD * WIDTH; k < end; k += LINE) {
            r[k] = 0;
        }
    }

    /** The call-table id of the row at {@code offset}. */
    public static int id(long[] rows, int offset) {
        return (int) rows[offset + ID_RESULT];
    }

    /** The call's result code of the row at {@code offset}. */
    public static int result(long[] rows, int offset) {
        return (int) (rows[offset + ID_RESULT] >> 32);
    }

    /** Receives drained records; {@code row} is valid only during the call. */
    public interface RowConsumer {
        void accept(CallBuffer buffer, long sequence, long[] rows, int offset);
    }

    /**
     * Hands every record published when it starts to {@code consumer}, in batches of up to {@link #BATCH} freed
     * one store each (so that a long drain gives the writer room early). Drain thread only.
     */
    public int drain(RowConsumer consumer) {
        return drain(consumer, Long.MAX_VALUE);
    }

    /**
     * Like {@link #drain(RowConsumer)}, but stops before the first record that ended after {@code endsThrough} (in
     * {@code HostClock} ticks) and leaves it and those after it for a later drain: a thread's records are in the order
     * of their ends, so the records handed over are exactly those whose times {@code HostClock} can convert for good.
     */
    public int drain(RowConsumer consumer, long endsThrough) {
        long[] c = counters;
        long h = (long) COUNTER.getAcquire(c, HEAD);
        long first = c[TAIL];
        long t = first;
        while (t < h) {
            long until = Math.min(h, t + BATCH);
            long s = t;
            for (; s < until; s++) {
                int o = (int) (s & mask) * WIDTH;
                if (rows[o + END] > endsThrough) {
                    break;
                }
                consumer.accept(this, s, rows, o);
            }
            COUNTER.setRelease(c, TAIL, s);
            if (s < until) {
                return (int) (s - first);
            }
            t = until;
        }
        return (int) (h - first);
    }

    public long dropped() {
        return (long) COUNTER.getAcquire(counters, DROPPED);
    }

    public long threadId() {
        return threadId;
    }

    /** The sequence number the owner's next record will get. Owner thread only. */
    long nextSequence() {
        return counters[HEAD];
    }

    /** Correlation id of the record with this per-thread sequence number: unique in the process. */
    public long correlationId(long sequence) {
        return ((long) (index + 1) << 40) | sequence;
    }

    public boolean isEmpty() {
        return (long) COUNTER.getAcquire(counters, HEAD) == counters[TAIL];
    }

    /** True when the owning thread has ended: once drained, the buffer can be let go. */
    public boolean ownerEnded() {
        Thread t = owner.get();
        return t == null || !t.isAlive();
    }
}
