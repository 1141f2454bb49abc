package dev.aorta.gpu.cupti;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buffers CUPTI fills with activity records, one pool for the process. CUPTI asks for a buffer on its own
 * thread, inside a callback that must not fail, and may give it back after the tracer that handed it out has
 * stopped; the buffers therefore live as long as the process (the global arena) and are reused by every tracer.
 * A pool per tracer leaked: an agent subscribing CUPTI anew for each capture window allocated fresh buffers each
 * time (RSS 329 -> 497 MB over 50 windows on an H100) while the last tracer's free ones were never used again.
 * The pool holds at most as many buffers as CUPTI ever held at once.
 */
final class ActivityBuffers {
    private final long bytes;
    private final ConcurrentLinkedQueue<MemorySegment> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();

    ActivityBuffers(long bytes) {
        this.bytes = bytes;
    }

    /** A free buffer, or a new one when CUPTI holds all there are. */
    MemorySegment take() {
        MemorySegment b = free.poll();
        if (b != null) {
            return b;
        }
        allocated.incrementAndGet();
        return Arena.global().allocate(bytes, 8);
    }

    /** A buffer CUPTI gave back (its address, as CUPTI passes it), free for the next request. */
    void giveBack(MemorySegment buffer) {
        if (buffer.address() != 0) {
            free.add(buffer.reinterpret(bytes));
        }
    }

    long bufferBytes() {
        return bytes;
    }

    /** Buffers allocated since the process started: the most CUPTI held at once, not one set per tracer. */
    int allocated() {
        return allocated.get();
    }
}
