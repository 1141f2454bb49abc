package example.fakegpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A simulated GPU behind the JCuda-shaped and aorta-gpu-shaped test doubles: every stream runs its work
 * in order, different streams run concurrently, events and stream waits order streams, synchronize
 * blocks the host until the device time it waits for has passed (device time = host time, so that
 * iteration windows on the host contain the simulated device work). It also keeps a log of what was
 * enqueued where, for choreography assertions, and the finished work for the fake CUPTI tracer.
 */
public final class FakeGpu {
    /** The fake CUPTI clock runs this far ahead of System.nanoTime(), so that anchoring is exercised. */
    public static final long CUPTI_OFFSET = 5_000_000_000L;

    /**
     * One unit of device work, and the driver API call that enqueued it (name, thread, host times,
     * correlation id), as CUPTI would report both.
     */
    public record Work(String kind, String name, long stream, long start, long end, long bytes, int gridX, int blockX,
                       String api, long thread, long apiStart, long apiEnd, long correlation) {
    }

    /** Off for benchmarks: the doubles then do nothing, like an empty native call. */
    private static volatile boolean simulating = true;
    private static long nextHandle = 0x7f0000001000L;
    private static final Map<Long, Long> streamReady = new HashMap<>();
    private static final Map<Long, Long> eventTime = new HashMap<>();
    private static final List<String> log = new ArrayList<>();
    private static final List<Work> finished = new ArrayList<>();
    private static final List<Long> registered = new ArrayList<>();
    private static long correlation;

    private FakeGpu() {
    }

    public static boolean simulating() {
        return simulating;
    }

    public static void stopSimulating() {
        simulating = false;
    }

    public static synchronized long newHandle() {
        nextHandle += 0x100;
        return nextHandle;
    }

    /** Enqueues work on a stream; it starts when the stream is free and runs for {@code durationNs}. */
    /** Enqueues work on a stream through the driver call {@code api}; it runs for {@code durationNs}. */
    public static void run(String kind, String name, long stream, long durationNs, long bytes, int gridX, int blockX,
                           String api) {
        if (simulating) {
            long apiStart = System.nanoTime();
            enqueue(kind, name, stream, durationNs, bytes, gridX, blockX, api, apiStart);
        }
    }

    private static synchronized void enqueue(String kind, String name, long stream, long durationNs, long bytes,
                                             int gridX, int blockX, String api, long apiStart) {
        long start = Math.max(System.nanoTime(), streamReady.getOrDefault(stream, 0L));
        long end = start + durationNs;
        streamReady.put(stream, end);
        finished.add(new Work(kind, name, stream, start, end, bytes, gridX, blockX, api,
                Thread.currentThread().getId(), apiStart, System.nanoTime(), ++correlation));
        log.add(name + "@" + stream);
    }

    /** CUPTI was told this stream's address (the fake keeps addresses anyway; tests look at the count). */
    public static synchronized void streamRegistered(long stream) {
        registered.add(stream);
    }

    public static synchronized List<Long> registeredStreams() {
        return new ArrayList<>(registered);
    }

    public static synchronized void eventRecord(long event, long stream) {
        eventTime.put(event, Math.max(System.nanoTime(), streamReady.getOrDefault(stream, 0L)));
        log.add("record " + event + "@" + stream);
    }

    public static synchronized void streamWait(long stream, long event) {
        streamReady.put(stream, Math.max(streamReady.getOrDefault(stream, 0L), eventTime.getOrDefault(event, 0L)));
        log.add("wait " + stream + "<-" + event);
    }

    /** Blocks until the stream (or every stream, for 0 = context) has finished its work. */
    public static void synchronize(long stream) {
        long until;
        synchronized (FakeGpu.class) {
            if (stream == 0) {
                until = streamReady.values().stream().mapToLong(Long::longValue).max().orElse(0);
            } else {
                until = streamReady.getOrDefault(stream, 0L);
            }
            log.add("sync " + stream);
        }
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    public static synchronized long eventTime(long event) {
        return eventTime.getOrDefault(event, 0L);
    }

    public static synchronized boolean eventDone(long event) {
        return eventTime.getOrDefault(event, 0L) <= System.nanoTime();
    }

    public static synchronized void eventSynchronize(long event) {
        long until = eventTime.getOrDefault(event, 0L);
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    /** Work that has finished by now, removed from the fake device (what CUPTI would deliver). */
    public static synchronized List<Work> takeFinished() {
        long now = System.nanoTime();
        List<Work> done = new ArrayList<>();
        finished.removeIf(w -> {
            if (w.end() <= now) {
                done.add(w);
                return true;
            }
            return false;
        });
        return done;
    }

    /** Everything enqueued so far, in order ("name@stream", "record e@s", "wait s<-e", "sync s"). */
    public static synchronized List<String> log() {
        return new ArrayList<>(log);
    }
}
