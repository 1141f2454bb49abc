package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.jcuda.JCudaNatives;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.gpu.cupti.CuptiRecords;
import dev.aorta.gpu.cupti.CuptiTracer;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Device activity from CUPTI through the project's FFM binding {@link CuptiTracer}: kernels, copies and memsets
 * with queued/submitted latency timestamps, and optionally CUPTI's driver API records, whose correlation ids join
 * the agent's API records to the device activity.
 *
 * <p>Compiled for Java 22 against aorta-gpu and started once by {@link CuptiLoader}. The tracer hands over plain
 * values ({@link CuptiRecords}), not the application's core records: the agent's core is a relocated copy, so
 * the records are built here, directly as the agent's own.
 */
public final class CuptiActivitySource implements DeviceActivitySource, CuptiRecords {
    /** How often CUPTI's filled buffers are taken: as often as the drain thread's default cycle. */
    static final long POLL_INTERVAL_NS = 20_000_000;

    private final int rank;
    private final CuptiLoader.Sink sink;
    private final boolean correlate;
    /** Null between capture windows. Every method that touches it holds this object's lock: windows open and close
     *  on the application's thread while the poller takes CUPTI's buffers. */
    private CuptiTracer tracer;
    /** The application's streams, registered again with each new subscription. */
    private final Set<Long> streams = new LinkedHashSet<>();
    /** For cuStreamGetCtx; made on the drain thread at the first stream (JCuda is loaded by then). */
    private JCudaNatives natives;
    /** Takes CUPTI's filled buffers while a window runs; null once stopped for good. */
    private volatile Thread poller;

    CuptiActivitySource(int rank, boolean correlate, CuptiLoader.Sink sink) {
        this.rank = rank;
        this.correlate = correlate;
        this.sink = sink;
    }

    /**
     * Starts CUPTI tracing (with latency timestamps) and passes the clock anchor on.
     *
     * @param correlate also record CUPTI's driver API calls, to join API records to device activity
     */
    public static DeviceActivitySource start(int rank, boolean correlate, CuptiLoader.Sink sink) {
        CuptiActivitySource source = new CuptiActivitySource(rank, correlate, sink);
        source.subscribe();
        Thread poller = new Thread(source::pollEveryInterval, "aorta-cupti-poll");
        poller.setDaemon(true);
        source.poller = poller;
        poller.start();
        return source;
    }

    /**
     * CUPTI decodes a buffer on the thread that asks for it (its FFM record walk, a kernel's name copied, the
     * records made): at 230 000 launches/s two records a launch, which on the drain thread, beside decoding, joining
     * and writing the threads' own records, made it fall 500 000 CUPTI records behind on an H100. So this thread,
     * not the drain thread, takes the filled buffers; the records reach the drain thread through its queue.
     */
    private void pollEveryInterval() {
        while (poller != null) {
            LockSupport.parkNanos(POLL_INTERVAL_NS);
            deliverCompleted();
        }
    }

    /** Starts tracing and passes a fresh anchor on (CUPTI's clock is read again at every window). */
    private void subscribe() {
        long from = System.nanoTime();
        sink.subscribing(from);  // before CUPTI is enabled: the join holds calls from here on for CUPTI's records
        CuptiTracer started;
        try {
            started = CuptiTracer.start(this, correlate, true);
        } catch (RuntimeException | LinkageError e) {
            sink.unsubscribing(from);
            sink.stopped(from);
            throw e;
        }
        try {
            CuptiTracer.ClockPair now = CuptiTracer.clockPair();
            sink.anchor(new ClockAnchor(ClockDomain.CUPTI, now.cuptiNs(), ClockDomain.HOST_MONOTONIC, now.hostNs()));
        } catch (RuntimeException e) {
            started.stop(); // records without an anchor could not be placed on the host timeline
            long now = System.nanoTime();
            sink.unsubscribing(now);
            sink.stopped(now);
            throw e;
        }
        tracer = started;
        for (long stream : new ArrayList<>(streams)) {
            streamCreated(stream);
        }
    }

    /** Between capture windows CUPTI is unsubscribed, so that the application runs as it would without us. */
    @Override
    public synchronized void pause() {
        unsubscribe();
    }

    @Override
    public synchronized void resume() {
        if (tracer == null) {
            try {
                subscribe();
            } catch (RuntimeException | LinkageError e) {
                AgentLog.once("cupti-resume", "CUPTI did not start again for a capture window (" + e
                        + "); this window has host-side API timing only");
            }
        }
    }

    @Override
    public void kernel(String name, int device, long stream, long startNs, long endNs, long correlationId,
                       long queuedNs, long submittedNs, int gridX, int gridY, int gridZ, int blockX, int blockY,
                       int blockZ) {
        sink.activity(new DeviceActivity(ActivityKind.KERNEL, name, rank, device, stream, startNs, endNs,
                correlationId, queuedNs, submittedNs, new Dim3(gridX, gridY, gridZ), new Dim3(blockX, blockY, blockZ),
                0, ClockDomain.CUPTI));
    }

    @Override
    public void memcpy(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes) {
        sink.activity(transfer(ActivityKind.MEMCPY, name, device, stream, startNs, endNs, correlationId, bytes));
    }

    @Override
    public void memset(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes) {
        sink.activity(transfer(ActivityKind.MEMSET, name, device, stream, startNs, endNs, correlationId, bytes));
    }

    private DeviceActivity transfer(ActivityKind kind, String name, int device, long stream, long startNs, long endNs,
                                    long correlationId, long bytes) {
        return new DeviceActivity(kind, name, rank, device, stream, startNs, endNs, correlationId,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, bytes, ClockDomain.CUPTI);
    }

    @Override
    public void driverCall(String name, long thread, long startNs, long endNs, long correlationId, int result) {
        sink.driverCall(new ApiCall(name, thread, 0, startNs, endNs, correlationId, result, Map.of(),
                ClockDomain.CUPTI));
    }

    @Override
    public String name() {
        return "cupti";
    }

    @Override
    public synchronized void flush() {
        if (tracer == null) {
            return;
        }
        try {
            tracer.flush();
        } catch (RuntimeException | LinkageError e) {
            AgentLog.once("cupti-flush", "CUPTI flush failed (" + e + "); later device activity may be missing");
        }
    }

    /**
     * The buffers CUPTI has filled, so that records keep coming without iteration markers: every
     * {@link #POLL_INTERVAL_NS} on {@link #pollEveryInterval}'s thread (the drain thread's poll is left a no-op).
     */
    private synchronized void deliverCompleted() {
        if (tracer == null) {
            return;
        }
        try {
            tracer.deliverCompleted();
        } catch (RuntimeException | LinkageError e) {
            AgentLog.once("cupti-poll", "CUPTI flush of completed buffers failed (" + e + "); records now come at"
                    + " iteration ends and at exit only");
        }
    }

    /** At exit or detach: flushes and unsubscribes, and the poller ends. */
    @Override
    public void stop() {
        Thread p = poller;
        poller = null;
        if (p != null) {
            LockSupport.unpark(p);
        }
        unsubscribe();
    }

    /** Flushes and unsubscribes: at the end of a window (through {@link #pause}) and at exit. */
    private synchronized void unsubscribe() {
        if (tracer == null) {
            return;
        }
        long until = System.nanoTime();
        sink.unsubscribing(until);  // calls after this are outside the window: the join does not hold them
        try {
            tracer.stop();   // flushes first
        } catch (RuntimeException | LinkageError e) {
            AgentLog.once("cupti-stop", "CUPTI stop failed (" + e + ")");
        }
        long lostByCupti = tracer.droppedRecords();
        if (lostByCupti > 0) {
            // CUPTI's own loss, which no count of ours sees: the launches of those records stay unjoined
            AgentLog.info("CUPTI dropped " + lostByCupti + " activity records (no buffer was free when it needed"
                    + " one); their launches carry no cupti_correlation");
        }
        tracer = null;
        // queued behind every record the stop's flush handed over: CUPTI has caught up through `until`
        sink.stopped(until);
    }

    /** Tells CUPTI the stream's address (its records then carry it instead of CUPTI's own stream id). */
    @Override
    public synchronized void streamCreated(long stream) {
        streams.add(stream);
        try {
            if (natives == null) {
                natives = new JCudaNatives();
            }
            if (tracer == null) {
                return;  // between windows: registered when the next window subscribes
            }
            tracer.registerStream(natives.streamContext(stream), stream);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            AgentLog.once("cupti-register", "cannot register streams with CUPTI (" + e
                    + "); device records carry CUPTI stream ids, not addresses");
        }
    }
}
