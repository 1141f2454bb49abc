package dev.aorta.agent.pipeline;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.jsonl.EventJsonlWriter;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * Formats the JSONL lines on a thread of its own: formatting is most of the drain thread's work per record (~500 of
 * ~700 ns measured by {@code DrainThroughputBench}), so at 230 000 launches/s from 4 threads, three records a launch,
 * one thread could not both take the records and write them. The drain thread puts each record into a bounded ring of
 * slots, in the order it takes them; this thread writes them in that order, so the file's bytes are those one thread
 * would write. A decoded call is copied into its slot (the drain thread reuses its record); everything else is
 * immutable and passed as it is. Nothing is allocated per record once the slots are warm.
 *
 * <p>A full ring makes the drain thread wait for room (never a dropped line): the threads' rings then fill, and what
 * they drop is counted and reported as before. A write that fails is thrown to the drain thread at its next hand-over,
 * where the sink's guard reports it and switches the sink off; this thread then discards what remains, so that the
 * drain thread never waits for it again.
 */
final class JsonlWriterThread implements Runnable {
    /** Slots, a power of two: ~35 ms of 460 000 lines/s, ~6 MiB with the decoded calls' argument arrays. */
    static final int SLOTS = 16_384;
    private static final int CALL = 1;
    private static final int API = 2;
    private static final int OTHER = 3;
    private static final int FLUSH = 4;
    private static final int CLOSE = 5;
    /**
     * The longest this thread sleeps with the ring empty. A hand-over wakes it (it sees {@link #idle}, both volatile:
     * either it sees the new head or the hand-over sees idle), so this only bounds a wake-up that would be missed
     * anyway; long, so that an idle application's agent does not wake a core 1000 times a second.
     */
    private static final long IDLE_NS = 100_000_000;

    private final EventJsonlWriter out;
    private final int[] types;
    private final CallRecord[] calls;
    private final Object[] records;
    private final long[] windows;
    private final int mask;
    private final Thread thread;
    /** Slots written by the drain thread (published), and taken by this thread; each written by one side only. */
    private volatile long head;
    private volatile long tail;
    private volatile boolean idle;
    private volatile Throwable failure;
    private boolean failureThrown;

    JsonlWriterThread(EventJsonlWriter out, String name) {
        this(out, name, SLOTS);
    }

    JsonlWriterThread(EventJsonlWriter out, String name, int slots) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.out = out;
        this.types = new int[slots];
        this.calls = new CallRecord[slots];
        this.records = new Object[slots];
        this.windows = new long[slots];
        this.mask = slots - 1;
        this.thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** A decoded call, copied (the caller reuses {@code call}); {@code window} as the line should carry it. */
    void call(CallRecord call, long window) throws IOException {
        int i = claim();
        CallRecord slot = calls[i];
        if (slot == null) {
            slot = calls[i] = new CallRecord();
        }
        slot.copyFrom(call);
        windows[i] = window;
        publish(i, CALL);
    }

    void api(ApiCall call, long window) throws IOException {
        int i = claim();
        records[i] = call;
        windows[i] = window;
        publish(i, API);
    }

    /** A {@link DeviceActivity}, {@link StreamInfo}, {@link Dependency}, {@link Marker} or {@link ClockAnchor}. */
    void record(Object record) throws IOException {
        int i = claim();
        records[i] = record;
        publish(i, OTHER);
    }

    /** The lines handed over so far reach the file soon, in the background (the drain thread does not wait). */
    void flush() throws IOException {
        publish(claim(), FLUSH);
        LockSupport.unpark(thread);
    }

    /** Writes what was handed over, closes the file and ends the thread; waits for all of that. */
    void close() throws IOException {
        publish(claim(), CLOSE);
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;   // at exit: the file is still closed first
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        rethrow();
    }

    /** The next free slot, waiting while the ring is full. */
    private int claim() throws IOException {
        rethrow();
        long h = head;
        while (h - tail >= types.length) {
            LockSupport.unpark(thread);
            LockSupport.parkNanos(20_000);
            if (!thread.isAlive()) {
                throw new IOException("the JSONL writer thread ended");
            }
        }
        return (int) (h & mask);
    }

    private void publish(int slot, int type) {
        types[slot] = type;
        head = head + 1;
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    private void rethrow() throws IOException {
        Throwable t = failure;
        if (t != null && !failureThrown) {
            failureThrown = true;
            throw t instanceof IOException io ? io : new IOException(t.toString(), t);
        }
    }

    @Override
    public void run() {
        long t = tail;
        while (true) {
            if (t == head) {
                idle = true;
                if (t == head) {
                    LockSupport.parkNanos(IDLE_NS);
                }
                idle = false;
                continue;
            }
            int i = (int) (t & mask);
            int type = types[i];
            if (failure == null || type == CLOSE) {   // a failed sink's file is still closed
                try {
                    write(i, type);
                } catch (Throwable e) {
                    if (failure == null) {
                        failure = e;
                    }
                }
            }
            records[i] = null;   // let the record go
            tail = ++t;
            if (type == CLOSE) {
                return;
            }
        }
    }

    private void write(int i, int type) throws IOException {
        switch (type) {
            case CALL -> calls[i].writeTo(out, windows[i]);
            case API -> out.write((ApiCall) records[i], windows[i]);
            case OTHER -> {
                Object o = records[i];
                if (o instanceof DeviceActivity a) {
                    out.write(a);
                } else if (o instanceof StreamInfo s) {
                    out.write(s);
                } else if (o instanceof Dependency d) {
                    out.write(d);
                } else if (o instanceof Marker m) {
                    out.write(m);
                } else if (o instanceof ClockAnchor a) {
                    out.write(a);
                }
            }
            case FLUSH -> out.flush();
            case CLOSE -> out.close();
            default -> throw new IllegalStateException("slot of unknown type " + type);
        }
    }
}
