package dev.aorta.agent.recorder;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One thread's ring of call records: fixed-width rows of primitives, written only by the owning thread
 * and read only by the drain thread. No locks: the writer publishes {@code head} with release
 * semantics after filling a row, the reader publishes {@code tail} after consuming rows. When the ring
 * is full the record is dropped and counted; the writer never waits.
 */
public final class CallBuffer {
    /** Longs per record: id, start, end, stream, result, a0..a7, padding to a power of two. */
    public static final int WIDTH = 16;
    static final int SHIFT = 4;
    public static final int ID = 0, START = 1, END = 2, STREAM = 3, RESULT = 4, ARG0 = 5;

    private static final VarHandle HEAD;
    private static final VarHandle DROPPED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(CallBuffer.class, "head", long.class);
            DROPPED = l.findVarHandle(CallBuffer.class, "dropped", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] rows;
    private final int mask;
    private final long capacity;
    private final long threadId;
    private final WeakReference<Thread> owner;
    private final int index;

    /** Next row the writer fills; written by the owner only (release), read by the drain thread (acquire). */
    @SuppressWarnings("unused")
    private long head;
    /** Next row the drain thread reads; written by the drain thread only. */
    private volatile long tail;
    /** Records lost because the ring was full; written by the owner only. */
    @SuppressWarnings("unused")
    private long dropped;

    CallBuffer(int capacity, Thread owner, int index) {
        this.rows = new long[capacity * WIDTH];
        this.mask = capacity - 1;
        this.capacity = capacity;
        this.threadId = owner.getId();
        this.owner = new WeakReference<>(owner);
        this.index = index;
    }

    /** Appends one record, or counts it as dropped when the ring is full. Owner thread only. */
    void put(long id, long start, long end, long stream, long result,
             long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7) {
        long h = head;
        if (h - tail >= capacity) {
            DROPPED.setRelease(this, dropped + 1);
            return;
        }
        long[] r = rows;
        int b = (int) (h & mask) << SHIFT;
        r[b] = id;
        r[b + 1] = start;
        r[b + 2] = end;
        r[b + 3] = stream;
        r[b + 4] = result;
        r[b + 5] = a0;
        r[b + 6] = a1;
        r[b + 7] = a2;
        r[b + 8] = a3;
        r[b + 9] = a4;
        r[b + 10] = a5;
        r[b + 11] = a6;
        r[b + 12] = a7;
        HEAD.setRelease(this, h + 1);
    }

    /** Receives drained records; {@code row} is valid only during the call. */
    public interface RowConsumer {
        void accept(CallBuffer buffer, long sequence, long[] rows, int offset);
    }

    /** Hands every published record to {@code consumer} and frees their rows. Drain thread only. */
    public int drain(RowConsumer consumer) {
        long h = (long) HEAD.getAcquire(this);
        long t = tail;
        for (long s = t; s < h; s++) {
            consumer.accept(this, s, rows, (int) (s & mask) << SHIFT);
        }
        tail = h;
        return (int) (h - t);
    }

    public long dropped() {
        return (long) DROPPED.getAcquire(this);
    }

    public long threadId() {
        return threadId;
    }

    /** The sequence number the owner's next record will get. Owner thread only. */
    long nextSequence() {
        return head;
    }

    /** Correlation id of the record with this per-thread sequence number: unique in the process. */
    public long correlationId(long sequence) {
        return ((long) (index + 1) << 40) | sequence;
    }

    public boolean isEmpty() {
        return (long) HEAD.getAcquire(this) == tail;
    }

    /** True when the owning thread has ended: once drained, the buffer can be let go. */
    public boolean ownerEnded() {
        Thread t = owner.get();
        return t == null || !t.isAlive();
    }
}
