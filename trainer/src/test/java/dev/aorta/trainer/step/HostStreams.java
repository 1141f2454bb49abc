package dev.aorta.trainer.step;

import dev.aorta.trainer.schedule.StreamRole;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One rank's four streams on the host, asynchronous as a GPU's: each stream is a thread that runs the work queued on
 * it in queue order, after a random short delay, while the issuing thread goes on. Events behave as CUDA's:
 * {@link #record} marks the point the stream has reached in its queue, {@link #waitFor} makes a stream wait (when
 * it gets there) for the event's latest record as of the call, and waiting for a never-recorded event waits for
 * nothing. So the only order between streams is the one events give: work that lacks a wait may run before the
 * work it depends on, and then computes from data that is not there yet.
 *
 * <p>A failure on a stream (an exception in its work) is kept and rethrown by {@link #synchronize} and
 * {@link #close}; the stream then skips its remaining work, as a faulted device would.
 */
final class HostStreams implements AutoCloseable {
    private static final long TIMEOUT_S = 60;
    /** Of 8 pieces of work, how many are delayed; the delay is up to {@link #MAX_DELAY_NS}. */
    private static final int DELAYED_OF_8 = 3;
    private static final long MAX_DELAY_NS = 200_000;

    private final Map<StreamRole, Worker> workers = new EnumMap<>(StreamRole.class);
    private final Map<Integer, CountDownLatch> events = new HashMap<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    HostStreams(String name) {
        for (StreamRole role : StreamRole.values()) {
            Worker w = new Worker();
            w.thread = Thread.ofPlatform().daemon().name(name + "-" + role.label()).start(w);
            workers.put(role, w);
        }
    }

    /** Queues {@code work} on {@code stream}; it runs after everything queued there before. */
    void enqueue(StreamRole stream, Runnable work) {
        workers.get(stream).queue.add(work);
    }

    /** Records event {@code id} on {@code stream}: complete once the stream has run what was queued before. */
    void record(int id, StreamRole stream) {
        CountDownLatch reached = new CountDownLatch(1);
        events.put(id, reached);
        enqueue(stream, (Marker) reached::countDown);
    }

    /** {@code stream} waits for event {@code id}'s latest record (as of now) before running what comes after. */
    void waitFor(StreamRole stream, int id) {
        CountDownLatch reached = events.get(id);
        if (reached != null) {
            enqueue(stream, () -> await(reached, "event " + id));
        }
    }

    /** Blocks the caller until event {@code id}'s latest record is complete (cuEventSynchronize). */
    void synchronize(int id) {
        CountDownLatch reached = events.get(id);
        if (reached != null) {
            await(reached, "event " + id);
        }
        rethrow();
    }

    /** Blocks the caller until every stream has run all its work (cuCtxSynchronize). */
    void synchronize() {
        for (Worker w : workers.values()) {
            CountDownLatch drained = new CountDownLatch(1);
            w.queue.add((Marker) drained::countDown);
            await(drained, "the end of " + w.thread.getName());
        }
        rethrow();
    }

    private void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("waited " + TIMEOUT_S + " s for " + what + " (a stream hangs)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    private void rethrow() {
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a stream failed: " + t, t);
        }
    }

    /** Lets every stream finish its work, stops them, and rethrows the first failure. */
    @Override
    public void close() {
        try {
            synchronize();
        } finally {
            for (Worker w : workers.values()) {
                w.thread.interrupt();
            }
        }
    }

    private final class Worker implements Runnable {
        final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        Thread thread;

        @Override
        public void run() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (true) {
                Runnable work;
                try {
                    work = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (random.nextInt(8) < DELAYED_OF_8) {
                    LockSupport.parkNanos(random.nextLong(MAX_DELAY_NS));
                }
                if (failure.get() != null && !(work instanceof Marker)) {
                    continue;
                }
                try {
                    work.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }
        }
    }

    /** Work that must run even after a failure (the latches that callers wait on). */
    private interface Marker extends Runnable {
    }
}
