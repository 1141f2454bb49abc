package dev.aorta.gpu.cupti;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static dev.aorta.gpu.cupti.ActivityRecordLayout.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Device activity from CUPTI's activity API, through FFM: every kernel (concurrent-kernel records), memcpy and
 * memset with device start/end timestamps, the queued/submitted latency timestamps where the driver gives them,
 * and (optionally) every driver API call with its correlation id, so launches and kernels can be joined.
 *
 * <p>CUPTI fills buffers we hand it and gives them back, full, on its own thread; records are decoded there
 * (never on the application's launch path) and passed to a {@link CuptiRecords}, or as {@code dev.aorta.core}
 * events to the consumers of {@link #start(Consumer, Consumer, int, boolean)}. {@link #flush()} forces out the
 * partly filled buffers and returns after their records were delivered. CUPTI is process-wide: at most one
 * tracer runs at a time. Timestamps are CUPTI's clock ({@link ClockDomain#CUPTI}); {@link #anchor()} pairs it
 * with {@code System.nanoTime()}.
 *
 * <p>Streams: a record's {@code stream} is the native CUstream address when the stream was announced through
 * {@link #registerStream}, else CUPTI's own stream id.
 */
public final class CuptiTracer implements AutoCloseable {
    /**
     * Per buffer CUPTI hands back: ~7 000 kernel records. Small enough that a consumer writing one buffer's records
     * does not hold up its other work for long (8 MiB buffers made the agent's drain thread fall behind the
     * application's call records at 200 000 launches/s), large enough that callbacks stay rare (~30/s there).
     */
    private static final long BUFFER_BYTES = 2L << 20;
    private static final int FLUSH_FORCED = 1;
    private static final int CB_DOMAIN_DRIVER_API = 1;
    private static final Object LOCK = new Object();
    private static CuptiTracer running;
    private static final Lazy<Library> LIBRARY = new Lazy<>(Library::new);
    /** Shared by every tracer of the process (see {@link ActivityBuffers} for the leak a pool per tracer made). */
    static final ActivityBuffers BUFFERS = new ActivityBuffers(BUFFER_BYTES);

    private final Library lib;
    private final CuptiRecords sink;
    private final boolean driverCalls;
    private final Map<Long, Long> streamsByCuptiId = new ConcurrentHashMap<>();
    private final Map<Integer, String> apiNames = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong callbackErrors = new AtomicLong();
    private final AtomicLong untimed = new AtomicLong();
    private volatile String lastCallbackError;
    private final boolean latencyTimestamps;
    private boolean stopped;

    /** libcupti and its functions, loaded once per process. */
    static final class Library {
        final NativeLibrary lib;
        final MethodHandle registerCallbacks, enable, disable, enableLatency, nextRecord, flushAll, timestamp,
                resultString, version, streamIdEx, callbackName, droppedRecords;
        final MemorySegment requestStub;
        final MemorySegment completeStub;

        Library() {
            lib = NativeLibrary.load("CUPTI", "AORTA_CUPTI_LIBRARY", "libcupti.so.13", "libcupti.so");
            registerCallbacks = lib.function("cuptiActivityRegisterCallbacks",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            enable = lib.function("cuptiActivityEnable", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            disable = lib.function("cuptiActivityDisable", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            enableLatency = lib.function("cuptiActivityEnableLatencyTimestamps", FunctionDescriptor.of(JAVA_INT, JAVA_BYTE));
            nextRecord = lib.function("cuptiActivityGetNextRecord",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
            flushAll = lib.function("cuptiActivityFlushAll", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            timestamp = lib.function("cuptiGetTimestamp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            resultString = lib.function("cuptiGetResultString", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            version = lib.function("cuptiGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            streamIdEx = lib.function("cuptiGetStreamIdEx",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BYTE, ADDRESS));
            callbackName = lib.function("cuptiGetCallbackName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
            droppedRecords = lib.function("cuptiActivityGetNumDroppedRecords",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                requestStub = Linker.nativeLinker().upcallStub(l.findStatic(CuptiTracer.class, "bufferRequested",
                                MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
                        FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS), Arena.global());
                completeStub = Linker.nativeLinker().upcallStub(l.findStatic(CuptiTracer.class, "bufferCompleted",
                                MethodType.methodType(void.class, MemorySegment.class, int.class, MemorySegment.class,
                                        long.class, long.class)),
                        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        void check(String call, int rc) {
            if (rc != 0) {
                throw new GpuException(call, rc, resultText(rc));
            }
        }

        String resultText(int rc) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(ADDRESS);
                if ((int) resultString.invokeExact(rc, s) == 0) {
                    return Ffm.string(s.get(ADDRESS, 0));
                }
            } catch (Throwable ignored) {
                // fall through to the numeric code
            }
            return "CUptiResult " + rc;
        }
    }

    static Library library() {
        return LIBRARY.get();
    }

    public static NativeLibrary nativeLibrary() {
        return library().lib;
    }

    /** CUPTI's API version (e.g. 130001 for CUDA 13.0). */
    public static int version() {
        Library l = library();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            l.check("cuptiGetVersion", (int) l.version.invokeExact(v));
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("cuptiGetVersion", t);
        }
    }

    /** Now, on CUPTI's clock, in ns. */
    public static long timestampNs() {
        Library l = library();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            l.check("cuptiGetTimestamp", (int) l.timestamp.invokeExact(v));
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("cuptiGetTimestamp", t);
        }
    }

    /** The same instant on CUPTI's clock and on {@code System.nanoTime()}, in ns. */
    public record ClockPair(long cuptiNs, long hostNs) {
    }

    /** The same instant on CUPTI's clock and on {@code System.nanoTime()}, as a core event. */
    public static ClockAnchor anchor() {
        ClockPair p = clockPair();
        return new ClockAnchor(ClockDomain.CUPTI, p.cuptiNs(), ClockDomain.HOST_MONOTONIC, p.hostNs());
    }

    /** The same instant on both clocks: the CUPTI read of five with the shortest host interval, at its midpoint. */
    public static ClockPair clockPair() {
        long best = Long.MAX_VALUE;
        long cupti = 0;
        long host = 0;
        for (int i = 0; i < 5; i++) {
            long before = System.nanoTime();
            long c = timestampNs();
            long after = System.nanoTime();
            if (after - before < best) {
                best = after - before;
                cupti = c;
                host = before + (after - before) / 2;
            }
        }
        return new ClockPair(cupti, host);
    }

    private CuptiTracer(Library lib, CuptiRecords sink, boolean driverCalls, boolean latencyTimestamps) {
        this.lib = lib;
        this.sink = sink;
        this.driverCalls = driverCalls;
        this.latencyTimestamps = latencyTimestamps;
    }

    /**
     * Starts recording kernels, memcpys and memsets (and driver API calls when {@code apiCalls} is not null),
     * delivered as {@code dev.aorta.core} events of this rank.
     *
     * @param latencyTimestamps also record each kernel's queued/submitted times (costs a little per launch)
     * @throws IllegalStateException when a tracer is already running in this process
     */
    public static CuptiTracer start(Consumer<DeviceActivity> activities, Consumer<ApiCall> apiCalls, int rank,
                                    boolean latencyTimestamps) {
        return start(new CoreRecords(activities, apiCalls, rank), apiCalls != null, latencyTimestamps);
    }

    /**
     * Starts recording kernels, memcpys and memsets (and driver API calls when {@code driverCalls}), each record
     * passed to {@code records}.
     *
     * @param latencyTimestamps also record each kernel's queued/submitted times (costs a little per launch)
     * @throws IllegalStateException when a tracer is already running in this process
     */
    public static CuptiTracer start(CuptiRecords records, boolean driverCalls, boolean latencyTimestamps) {
        Library l = library();
        int v = version();
        if (v / 10000 != 13) {
            throw new GpuException("CUPTI API version " + v + " is not supported (record layouts are those of CUPTI 13)",
                    null);
        }
        synchronized (LOCK) {
            if (running != null) {
                throw new IllegalStateException("a CUPTI tracer is already running in this process");
            }
            CuptiTracer t = new CuptiTracer(l, records, driverCalls, latencyTimestamps);
            running = t;
            try {
                l.check("cuptiActivityRegisterCallbacks", (int) l.registerCallbacks.invokeExact(l.requestStub, l.completeStub));
                if (latencyTimestamps) {
                    l.check("cuptiActivityEnableLatencyTimestamps", (int) l.enableLatency.invokeExact((byte) 1));
                }
                for (int kind : t.kinds()) {
                    l.check("cuptiActivityEnable(" + kind + ")", (int) l.enable.invokeExact(kind));
                }
            } catch (Throwable e) {
                running = null;
                throw Ffm.callFailed("CUPTI start", e);
            }
            return t;
        }
    }

    private int[] kinds() {
        return !driverCalls ? new int[] {KIND_CONCURRENT_KERNEL, KIND_MEMCPY, KIND_MEMSET}
                : new int[] {KIND_CONCURRENT_KERNEL, KIND_MEMCPY, KIND_MEMSET, KIND_DRIVER};
    }

    /** Announces a stream so its records carry the CUstream address instead of CUPTI's stream id. */
    public void registerStream(long context, long stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocate(JAVA_INT);
            lib.check("cuptiGetStreamIdEx", (int) lib.streamIdEx.invokeExact(context, stream, (byte) 0, id));
            streamsByCuptiId.put(Integer.toUnsignedLong(id.get(JAVA_INT, 0)), stream);
        } catch (Throwable t) {
            throw Ffm.callFailed("cuptiGetStreamIdEx", t);
        }
    }

    /** Delivers every record completed so far; returns after the consumers have seen them. */
    public void flush() {
        flushAll(FLUSH_FORCED);
        String err = lastCallbackError;
        if (err != null) {
            lastCallbackError = null;
            throw new GpuException("decoding CUPTI records failed " + callbackErrors.get() + " time(s): " + err, null);
        }
    }

    /**
     * Delivers the buffers CUPTI has filled, not the ones still being filled: cheap when there are none. CUPTI
     * hands full buffers back on its own only by its own heuristics (on an H100 it kept 600 000 records of a
     * 5-second launch loop until exit), so a long-running consumer calls this periodically.
     */
    public void deliverCompleted() {
        flushAll(0);
    }

    private void flushAll(int flags) {
        try {
            lib.check("cuptiActivityFlushAll", (int) lib.flushAll.invokeExact(flags));
        } catch (Throwable t) {
            throw Ffm.callFailed("cuptiActivityFlushAll", t);
        }
    }

    /** Records delivered so far. */
    public long recordCount() {
        return records.get();
    }

    /** Records CUPTI dropped because no buffer was free (should stay 0). */
    public long droppedRecords() {
        return dropped.get();
    }

    /** Activity records CUPTI delivered without timestamps (start = end = 0), left out. */
    public long untimedRecords() {
        return untimed.get();
    }

    public boolean latencyTimestamps() {
        return latencyTimestamps;
    }

    /** Flushes, stops recording and releases CUPTI for another tracer. */
    public void stop() {
        synchronized (LOCK) {
            if (stopped) {
                return;
            }
            stopped = true;
            try {
                flush();
                for (int kind : kinds()) {
                    lib.check("cuptiActivityDisable(" + kind + ")", (int) lib.disable.invokeExact(kind));
                }
                lib.check("cuptiActivityFlushAll", (int) lib.flushAll.invokeExact(FLUSH_FORCED));
            } catch (Throwable t) {
                throw Ffm.callFailed("CUPTI stop", t);
            } finally {
                running = null;
            }
        }
    }

    @Override
    public void close() {
        stop();
    }

    // ---- CUPTI's callbacks (on CUPTI's thread; an exception here would kill the JVM, so none escapes) ----

    private static void bufferRequested(MemorySegment bufferOut, MemorySegment sizeOut, MemorySegment maxRecordsOut) {
        try {
            MemorySegment buf = BUFFERS.take();
            bufferOut.reinterpret(8).set(ADDRESS, 0, buf);
            sizeOut.reinterpret(8).set(JAVA_LONG, 0, BUFFER_BYTES);
            maxRecordsOut.reinterpret(8).set(JAVA_LONG, 0, 0L);
        } catch (Throwable e) {
            bufferOut.reinterpret(8).set(ADDRESS, 0, MemorySegment.NULL); // CUPTI then drops records, and counts them
        }
    }

    private static void bufferCompleted(MemorySegment context, int streamId, MemorySegment buffer, long size,
                                        long validSize) {
        CuptiTracer t = running;
        try {
            if (t != null) {
                t.decode(buffer, validSize);
                t.countDropped(context.address(), streamId);
            }
        } catch (Throwable e) {
            if (t != null) {
                t.callbackErrors.incrementAndGet();
                t.lastCallbackError = e.toString();
            }
        } finally {
            BUFFERS.giveBack(buffer);  // also a buffer of a tracer that stopped: the next one reuses it
        }
    }

    private void decode(MemorySegment buffer, long validSize) throws Throwable {
        if (validSize <= 0) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment recordOut = a.allocate(ADDRESS);
            recordOut.set(ADDRESS, 0, MemorySegment.NULL);
            MemorySegment buf = buffer.reinterpret(validSize);
            while ((int) lib.nextRecord.invokeExact(buf, validSize, recordOut) == 0) {
                MemorySegment r = recordOut.get(ADDRESS, 0);
                int kind = r.reinterpret(4).get(JAVA_INT, KIND);
                switch (kind) {
                    case KIND_KERNEL, KIND_CONCURRENT_KERNEL -> kernel(r.reinterpret(KERNEL_SIZE));
                    case KIND_MEMCPY -> memcpy(r.reinterpret(MEMCPY_SIZE));
                    case KIND_MEMSET -> memset(r.reinterpret(MEMSET_SIZE));
                    case KIND_DRIVER -> {
                        if (driverCalls) {
                            api(r.reinterpret(API_SIZE));
                        }
                    }
                    default -> {
                        continue; // kinds we did not enable
                    }
                }
                records.incrementAndGet();
            }
        }
    }

    /**
     * Whether CUPTI timed the record: start and end both 0 is CUPTI's way of saying it could not (seen for NCCL
     * kernels still running when a communicator was torn down); those are counted and left out.
     */
    private boolean timed(long startNs, long endNs) {
        if (startNs == 0 && endNs == 0) {
            untimed.incrementAndGet();
            return false;
        }
        return true;
    }

    private void kernel(MemorySegment r) {
        long start = r.get(JAVA_LONG, KERNEL_START);
        long end = r.get(JAVA_LONG, KERNEL_END);
        if (!timed(start, end)) {
            return;
        }
        long queued = r.get(JAVA_LONG, KERNEL_QUEUED);
        long submitted = r.get(JAVA_LONG, KERNEL_SUBMITTED);
        sink.kernel(Ffm.string(r.get(ADDRESS, KERNEL_NAME)), r.get(JAVA_INT, KERNEL_DEVICE),
                stream(r.get(JAVA_INT, KERNEL_STREAM)), start, end,
                Integer.toUnsignedLong(r.get(JAVA_INT, KERNEL_CORRELATION)),
                queued == 0 ? DeviceActivity.UNKNOWN : queued, submitted == 0 ? DeviceActivity.UNKNOWN : submitted,
                r.get(JAVA_INT, KERNEL_GRID_X), r.get(JAVA_INT, KERNEL_GRID_X + 4), r.get(JAVA_INT, KERNEL_GRID_X + 8),
                r.get(JAVA_INT, KERNEL_BLOCK_X), r.get(JAVA_INT, KERNEL_BLOCK_X + 4), r.get(JAVA_INT, KERNEL_BLOCK_X + 8));
    }

    private void memcpy(MemorySegment r) {
        long start = r.get(JAVA_LONG, MEMCPY_START);
        long end = r.get(JAVA_LONG, MEMCPY_END);
        if (!timed(start, end)) {
            return;
        }
        int copyKind = Byte.toUnsignedInt(r.get(JAVA_BYTE, MEMCPY_COPY_KIND));
        String name = "Memcpy " + (copyKind < COPY_KINDS.length ? COPY_KINDS[copyKind] : "kind " + copyKind);
        sink.memcpy(name, r.get(JAVA_INT, MEMCPY_DEVICE), stream(r.get(JAVA_INT, MEMCPY_STREAM)), start, end,
                Integer.toUnsignedLong(r.get(JAVA_INT, MEMCPY_CORRELATION)), r.get(JAVA_LONG, MEMCPY_BYTES));
    }

    private void memset(MemorySegment r) {
        long start = r.get(JAVA_LONG, MEMSET_START);
        long end = r.get(JAVA_LONG, MEMSET_END);
        if (!timed(start, end)) {
            return;
        }
        sink.memset("Memset", r.get(JAVA_INT, MEMSET_DEVICE), stream(r.get(JAVA_INT, MEMSET_STREAM)), start, end,
                Integer.toUnsignedLong(r.get(JAVA_INT, MEMSET_CORRELATION)), r.get(JAVA_LONG, MEMSET_BYTES));
    }

    private void api(MemorySegment r) throws Throwable {
        int cbid = r.get(JAVA_INT, API_CBID);
        String name = apiNames.get(cbid);
        if (name == null) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(ADDRESS);
                int rc = (int) lib.callbackName.invokeExact(CB_DOMAIN_DRIVER_API, cbid, s);
                name = rc == 0 ? Ffm.string(s.get(ADDRESS, 0)) : "driver_cbid_" + cbid;
            }
            apiNames.put(cbid, name);
        }
        sink.driverCall(name, Integer.toUnsignedLong(r.get(JAVA_INT, API_THREAD)), r.get(JAVA_LONG, API_START),
                r.get(JAVA_LONG, API_END), Integer.toUnsignedLong(r.get(JAVA_INT, API_CORRELATION)),
                r.get(JAVA_INT, API_RETURN));
    }

    private long stream(int cuptiStreamId) {
        long id = Integer.toUnsignedLong(cuptiStreamId);
        return streamsByCuptiId.getOrDefault(id, id);
    }

    private void countDropped(long context, int streamId) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocate(JAVA_LONG);
            if ((int) lib.droppedRecords.invokeExact(context, streamId, n) == 0) {
                dropped.addAndGet(n.get(JAVA_LONG, 0));
            }
        }
    }
}
