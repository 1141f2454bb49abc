package example.fakegpu;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * A simulated GPU behind the JCuda-shaped and aorta-gpu-shaped test doubles: every stream runs its work
 * in order, different streams run concurrently, events and stream waits order streams, synchronize
 * blocks the host until the device time it waits for has passed (device time = host time, so that
 * iteration windows on the host contain the simulated device work). It also keeps a log of what was
 * enqueued where, for choreography assertions, and the finished work for the fake CUPTI tracer.
 *
 * <p>Stream memory operations: a stream that reaches a wait on a word of mapped host memory
 * ({@link #waitAtLeast}) holds everything enqueued behind it until the word is seen to reach the value; the fake
 * looks at the word whenever it is asked anything, and the held work then starts when the stream reached the wait
 * or when the word was seen, whichever is later. A stream can be marked as capturing into a graph.
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

    /** A driver API call that enqueued work, as CUPTI reports it: at the call's return, before the work runs. */
    public record DriverCall(String api, long thread, long apiStart, long apiEnd, long correlation) {
    }

    /** Off for benchmarks: the doubles then do nothing, like an empty native call. */
    private static volatile boolean simulating = true;
    private static long nextHandle = 0x7f0000001000L;
    private static final Map<Long, Long> streamReady = new HashMap<>();
    private static final Map<Long, Long> eventTime = new HashMap<>();
    private static final List<String> log = new ArrayList<>();
    private static final List<Work> finished = new ArrayList<>();
    private static final List<DriverCall> issued = new ArrayList<>();
    private static final List<Long> registered = new ArrayList<>();
    private static long correlation;
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    /** A wait a stream has reached and not yet passed. */
    private record Gate(long address, int value, long reached) {
    }
    private static final Map<Long, Gate> closedGates = new HashMap<>();
    /** Per gated stream: what was enqueued behind its gate, each run with the time the stream gets to it. */
    private static final Map<Long, List<LongConsumer>> held = new HashMap<>();
    private static final Map<Long, ByteBuffer> hostMemory = new HashMap<>();
    private static final Set<Long> capturing = new HashSet<>();
    private static volatile boolean memoryOperations = true;
    private static volatile CountDownLatch queryHold;

    private FakeGpu() {
    }

    public static boolean simulating() {
        return simulating;
    }

    public static void stopSimulating() {
        simulating = false;
    }

    /** Back on after {@link #stopSimulating()} (tests that measure the doubles' own allocation). */
    public static void startSimulating() {
        simulating = true;
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
        openGates();
        long thread = Thread.currentThread().getId();
        long apiEnd = System.nanoTime();
        long id = ++correlation;
        issued.add(new DriverCall(api, thread, apiStart, apiEnd, id));
        log.add(name + "@" + stream);
        whenStreamGetsThere(stream, at -> {
            long start = Math.max(at, streamReady.getOrDefault(stream, 0L));
            long end = start + durationNs;
            streamReady.put(stream, end);
            finished.add(new Work(kind, name, stream, start, end, bytes, gridX, blockX, api, thread, apiStart, apiEnd,
                    id));
        });
    }

    /** Runs {@code op} now, or when the stream's gate opens if the stream is held at one. */
    private static void whenStreamGetsThere(long stream, LongConsumer op) {
        List<LongConsumer> behindGate = held.get(stream);
        if (behindGate != null) {
            behindGate.add(op);
        } else {
            op.accept(System.nanoTime());
        }
    }

    /** Opens every gate whose word has reached its value, running what was held behind it. */
    private static void openGates() {
        long now = System.nanoTime();
        for (Long stream : new ArrayList<>(closedGates.keySet())) {
            Gate g = closedGates.get(stream);
            if (!reached(g.address, g.value)) {
                continue;
            }
            closedGates.remove(stream);
            long open = Math.max(g.reached, now);
            for (LongConsumer op : held.remove(stream)) {
                List<LongConsumer> again = held.get(stream); // an op behind this gate may be the next gate
                if (again != null) {
                    again.add(op);
                } else {
                    op.accept(open);
                }
            }
        }
    }

    private static boolean reached(long address, int value) {
        for (Map.Entry<Long, ByteBuffer> m : hostMemory.entrySet()) {
            long offset = address - m.getKey();
            if (offset >= 0 && offset < m.getValue().capacity()) {
                return (int) WORD.getVolatile(m.getValue(), (int) offset) - value >= 0;
            }
        }
        throw new IllegalStateException("a stream waits on 0x" + Long.toHexString(address) + ", not mapped host memory");
    }

    /** cuMemHostAlloc: zeroed host memory; its device address is its host address (unified addressing). */
    public static synchronized long hostAlloc(long bytes) {
        long address = newHandle();
        nextHandle += bytes; // keep later handles out of this range
        hostMemory.put(address, ByteBuffer.allocateDirect((int) bytes));
        return address;
    }

    /** jcuda.Pointer#getByteBuffer on host memory from {@link #hostAlloc}. */
    public static synchronized ByteBuffer hostBuffer(long address, long offset, long bytes) {
        ByteBuffer whole = hostMemory.get(address);
        if (whole == null) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " is not host memory from cuMemHostAlloc");
        }
        return whole.duplicate().position((int) offset).limit((int) (offset + bytes)).slice();
    }

    /** cuStreamWaitValue32 with CU_STREAM_WAIT_VALUE_GEQ; fails like a device without memory operations. */
    public static synchronized boolean waitAtLeast(long stream, long address, int value) {
        if (!memoryOperations) {
            return false;
        }
        openGates();
        log.add("wait " + stream + "<-word>=" + value);
        whenStreamGetsThere(stream, at -> {
            if (!reached(address, value)) {
                closedGates.put(stream, new Gate(address, value, Math.max(at, streamReady.getOrDefault(stream, 0L))));
                held.put(stream, new ArrayList<>());
            }
        });
        return true;
    }

    /** Whether the device supports stream memory operations (cuStreamWaitValue32); on by default. */
    public static void memoryOperations(boolean supported) {
        memoryOperations = supported;
    }

    public static boolean memoryOperations() {
        return memoryOperations;
    }

    /** Streams held at a gate whose word has not reached its value, as the device sees them now. */
    public static synchronized int closedGates() {
        openGates();
        return closedGates.size();
    }

    public static synchronized void capturing(long stream, boolean on) {
        if (on) {
            capturing.add(stream);
        } else {
            capturing.remove(stream);
        }
    }

    public static synchronized boolean capturing(long stream) {
        return capturing.contains(stream);
    }

    /** While {@code hold} is not counted down, every cuEventQuery waits on it (a driver call stuck on a lock). */
    public static void holdQueries(CountDownLatch hold) {
        queryHold = hold;
    }

    /** Called by the cuEventQuery double outside this class's lock, so that only the querying thread waits. */
    public static void queryEntered() throws InterruptedException {
        CountDownLatch hold = queryHold;
        if (hold != null) {
            hold.await();
        }
    }

    /** CUPTI was told this stream's address (the fake keeps addresses anyway; tests look at the count). */
    public static synchronized void streamRegistered(long stream) {
        registered.add(stream);
    }

    public static synchronized List<Long> registeredStreams() {
        return new ArrayList<>(registered);
    }

    private static final Set<Long> liveEvents = new HashSet<>();
    private static final Set<Long> destroyedEvents = new HashSet<>();

    public static synchronized void eventCreated(long event) {
        liveEvents.add(event);
    }

    /** The context went: every event made so far with it. */
    public static synchronized void contextDestroyed() {
        destroyedEvents.addAll(liveEvents);
        liveEvents.clear();
        log.add("context destroyed");
    }

    public static synchronized boolean eventDestroyed(long event) {
        return !destroyedEvents.isEmpty() && destroyedEvents.contains(event);
    }

    public static synchronized void eventRecord(long event, long stream) {
        openGates();
        eventTime.put(event, Long.MAX_VALUE); // not reached until the stream gets there
        log.add("record " + event + "@" + stream);
        whenStreamGetsThere(stream, at -> eventTime.put(event, Math.max(at, streamReady.getOrDefault(stream, 0L))));
    }

    public static synchronized void streamWait(long stream, long event) {
        openGates();
        log.add("wait " + stream + "<-" + event);
        whenStreamGetsThere(stream, at -> streamReady.put(stream,
                Math.max(streamReady.getOrDefault(stream, 0L), eventTime.getOrDefault(event, 0L))));
    }

    /** Blocks until the stream (or every stream, for 0 = context) has finished its work. */
    public static void synchronize(long stream) {
        long until;
        synchronized (FakeGpu.class) {
            openGates();
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
        openGates();
        return eventTime.getOrDefault(event, 0L);
    }

    public static synchronized boolean eventDone(long event) {
        openGates();
        return eventTime.getOrDefault(event, 0L) <= System.nanoTime();
    }

    /** Blocks until the event is reached: outside the lock, so that the host can open a gate meanwhile. */
    public static void eventSynchronize(long event) {
        long until;
        while ((until = eventTime(event)) == Long.MAX_VALUE) {
            LockSupport.parkNanos(10_000);
        }
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    /** Work that has finished by now, removed from the fake device (what CUPTI would deliver). */
    /** The driver calls made since the last take, whether or not their work has run. */
    public static synchronized List<DriverCall> takeIssued() {
        List<DriverCall> calls = new ArrayList<>(issued);
        issued.clear();
        return calls;
    }

    public static synchronized List<Work> takeFinished() {
        openGates();
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
