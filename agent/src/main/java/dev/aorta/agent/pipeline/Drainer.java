package dev.aorta.agent.pipeline;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.device.DeviceActivitySource;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.HostClock;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The background thread: every few milliseconds it empties each thread's {@link CallBuffer}, decodes the
 * rows, takes the records other threads queued (device activity from CUPTI, the binder's streams and
 * dependencies), hands everything to the sinks and flushes them. After an iteration ended it first asks
 * the device source to flush, so that the iteration's device activity follows promptly.
 */
public final class Drainer implements Runnable {
    /**
     * CUPTI records handed over and not yet drained, at most (67 MB of heap measured with shared kernel
     * names, ~1.4 s of a 130 000 launches/s workload): beyond, a drain thread that fell behind would cost
     * the application's heap and a long exit instead of records.
     */
    public static final int MAX_QUEUED_DEVICE_RECORDS = 500_000;

    /**
     * CUPTI hands over a full buffer (tens of thousands of records) at once; while the drain thread writes them,
     * the application's rings fill: on an H100 host a 200 000 launches/s loop lost 14% of its call records
     * behind them. So the rings are drained again every this many CUPTI records.
     */
    static final int BUFFERS_EVERY = 4096;

    private final Fanout sinks;
    private final CallDecoder decoder;
    private final IterationTracker iterations;
    private final long intervalMs;
    private final Queue<Object> queued = new ConcurrentLinkedQueue<>();
    /** CUPTI's activities and driver calls, bounded (drained after {@link #queued}, which holds the anchor). */
    private final Queue<Object> deviceRecords = new ConcurrentLinkedQueue<>();
    private final int maxQueuedDeviceRecords;
    private final AtomicInteger queuedDeviceRecords = new AtomicInteger();
    private final AtomicLong droppedDeviceRecords = new AtomicLong();
    private volatile DeviceActivitySource device = DeviceActivitySource.NONE;
    private volatile boolean running = true;
    private final java.util.concurrent.atomic.AtomicBoolean shutDown = new java.util.concurrent.atomic.AtomicBoolean();
    private final Thread thread;
    /** The running drain thread, for {@link #wake()}. */
    private static volatile Thread current;
    private long droppedReported;

    private final CorrelationJoin join;
    private final CuptiCoverage cuptiCoverage = new CuptiCoverage();

    /** A CUPTI driver API record, queued for the correlation join (never written itself). */
    public record DriverCall(ApiCall call) {
    }

    /** CUPTI handed over every record made before host {@code hostNs}, stopped or flushed (queued behind them). */
    public record CuptiHandedOver(long hostNs) {
    }

    public Drainer(Fanout sinks, Set<Category> categories, int rank, long intervalMs) {
        this(sinks, categories, rank, intervalMs, MAX_QUEUED_DEVICE_RECORDS);
    }

    Drainer(Fanout sinks, Set<Category> categories, int rank, long intervalMs, int maxQueuedDeviceRecords) {
        this.maxQueuedDeviceRecords = maxQueuedDeviceRecords;
        this.sinks = sinks;
        this.join = new CorrelationJoin(sinks, cuptiCoverage);
        this.iterations = new IterationTracker(sinks, rank);
        this.decoder = new CallDecoder(sinks, join::api, s -> device.streamCreated(s), iterations, categories);
        this.intervalMs = intervalMs;
        this.thread = new Thread(this, "aorta-drain");
        thread.setDaemon(true);
    }

    public void start() {
        current = thread;
        thread.start();
    }

    /**
     * Drains now instead of at the next interval: called at iteration markers (rare), so that an
     * iteration's records reach the files, and the JFR events the JVM may write at exit, promptly.
     */
    public static void wake() {
        Thread t = current;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    public void deviceSource(DeviceActivitySource source) {
        this.device = source;
    }

    public DeviceActivitySource deviceSource() {
        return device;
    }

    /**
     * Switches the device source on or off for a capture window: CUPTI's subscription, or its last flush and
     * unsubscription, which take tens to hundreds of ms. On the drain thread (a timed window's edge, from
     * {@code tick}) the switch runs on a thread of its own while this one goes on emptying the threads' buffers: a
     * thread launching 230 000 times a second fills its 16 384 records in 70 ms, and an H100 run lost 5068 call
     * records behind these switches. Elsewhere (an iteration marker, a capture request) it runs on the caller.
     */
    public void switchDevice(boolean on) {
        DeviceActivitySource source = device;
        Runnable change = on ? source::resume : source::pause;
        if (Thread.currentThread() != thread) {
            change.run();
            return;
        }
        FutureTask<Void> task = new FutureTask<>(change, null);
        Thread switcher = new Thread(task, "aorta-device-switch");
        switcher.setDaemon(true);
        switcher.start();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    task.get(1, TimeUnit.MILLISECONDS);
                    return;
                } catch (TimeoutException e) {
                    drainBuffers(false);
                    // CUPTI's last flush hands over all it held while this waits: taken as it comes, not dropped
                    // behind MAX_QUEUED_DEVICE_RECORDS
                    takeDeviceRecords(BUFFERS_EVERY);
                } catch (InterruptedException e) {
                    interrupted = true;   // shutting down: the switch still finishes first
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** From any thread: a record that did not come through a call buffer. */
    public void submit(Object record) {
        queued.add(record);
    }

    /**
     * From CUPTI's thread: a {@link DeviceActivity} or {@link DriverCall}. Dropped and counted while
     * {@link #MAX_QUEUED_DEVICE_RECORDS} are waiting for the drain thread. At exit there is no drain thread to
     * wait for, and CUPTI's last flush hands over what it still holds at once: it is queued whole and written by
     * the exit's last cycle (CUPTI holds little by then, as its filled buffers are taken every cycle). Nothing
     * here waits for the drain thread's lock, which a drain cycle may hold while it asks CUPTI for buffers.
     */
    public void submitDeviceRecord(Object record) {
        if (queuedDeviceRecords.incrementAndGet() > maxQueuedDeviceRecords && running) {
            queuedDeviceRecords.decrementAndGet();
            droppedDeviceRecords.incrementAndGet();
            return;
        }
        deviceRecords.add(record);
    }

    /** When CUPTI runs, marked by its source as it switches (the join holds only records made then). */
    public CuptiCoverage cuptiCoverage() {
        return cuptiCoverage;
    }

    /**
     * From the thread that stopped CUPTI, after its last flush: never dropped, as the join needs it to know that
     * CUPTI's records of the window are all in and that later calls have none.
     */
    public void deviceActivityStopped(long hostNs) {
        handedOver(hostNs);
    }

    private void handedOver(long hostNs) {
        queuedDeviceRecords.incrementAndGet();
        deviceRecords.add(new CuptiHandedOver(hostNs));
    }

    /** CUPTI records dropped because the drain thread was {@link #MAX_QUEUED_DEVICE_RECORDS} behind. */
    public long droppedDeviceRecords() {
        return droppedDeviceRecords.get();
    }

    @Override
    public void run() {
        while (running) {
            try {
                LockSupport.parkNanos(intervalMs * 1_000_000L);
                if (Thread.interrupted()) {
                    return;
                }
                cycle();
            } catch (Throwable t) {
                // a decoding bug must not kill the thread that keeps the buffers from overflowing
                AgentLog.once("drain-" + t.getClass().getName(), "drain cycle failed (" + t + "); continuing");
            }
        }
    }

    /** One pass: buffers, queued records, flush. Runs on the drain thread (or at shutdown, after it stopped). */
    public synchronized void cycle() {
        cycle(false);
    }

    /** {@code last}: nothing will be drained after, so everything recorded so far must settle. */
    private void cycle(boolean last) {
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.tick();  // a timed window's edges, to within one drain interval
        }
        long iterationsBefore = iterations.completed();
        int n = drainBuffers(last);
        if (iterations.completed() != iterationsBefore || join.waitingOnCupti(System.nanoTime())) {
            long through = System.nanoTime();
            device.flush();
            handedOver(through);   // a forced flush hands over every record made before it, each thread's buffer
        } else {
            device.poll();
        }
        n += drainQueued();
        join.release(false);
        if (n > 0) {
            sinks.flush();
        }
    }

    /**
     * Anchors the host clock first, settles the capture windows' edges read before the anchor, then drains the
     * records that ended before it (newer ones wait for the next drain): every time written is converted for good.
     */
    private int drainBuffers(boolean forceAnchor) {
        HostClock.anchor(forceAnchor);
        long settled = HostClock.settledThrough();
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.settle(HostClock::toNanos, settled);
        }
        int n = 0;
        for (CallBuffer b : Recorder.buffers()) {
            boolean ended = b.ownerEnded();
            n += b.drain(decoder, settled);
            if (ended && b.isEmpty()) {
                Recorder.retire(b);
            }
        }
        return n;
    }

    private int drainQueued() {
        int n = 0;
        Object o;
        while ((o = queued.poll()) != null) {
            n++;
            take(o);
        }
        int device = 0;
        int taken;
        while ((taken = takeDeviceRecords(BUFFERS_EVERY)) > 0) {
            device += taken;
            if (taken == BUFFERS_EVERY) {
                n += keepUp();
            }
        }
        return n + device;
    }

    /** Up to {@code max} of CUPTI's queued records, into the join and the sinks; how many were taken. */
    private int takeDeviceRecords(int max) {
        int taken = 0;
        Object o;
        while (taken < max && (o = deviceRecords.poll()) != null) {
            queuedDeviceRecords.decrementAndGet();
            take(o);
            taken++;
        }
        return taken;
    }

    /**
     * Between CUPTI records, while CUPTI keeps handing over more: the threads' rings are drained and a timed window's
     * edges checked, as a cycle would. A 2 s window of an H100 run closed after 3.655 s: the cycle that should have
     * closed it was still taking CUPTI's records, which came as fast as it took them.
     */
    private int keepUp() {
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.tick();
        }
        return drainBuffers(false);
    }

    private void take(Object o) {
        if (o instanceof DeviceActivity a) {
            sinks.activity(a);
        } else if (o instanceof StreamInfo s) {
            decoder.streamCreated(s);
        } else if (o instanceof Dependency d) {
            decoder.dependency(d);
        } else if (o instanceof ClockAnchor a) {
            sinks.anchor(a);
            join.anchor(a);
        } else if (o instanceof DriverCall c) {
            join.driverCall(c.call());
        } else if (o instanceof CuptiHandedOver s) {
            join.handedOverThrough(s.hostNs());
        } else if (o instanceof Marker m) {
            sinks.marker(m);
        }
    }

    /** Start of the iteration currently open (host ns), or -1; drain thread only. */
    public long openIterationStart() {
        return iterations.openSince();
    }

    /** Records lost to full buffers, all threads together. */
    public long dropped() {
        long sum = Recorder.retiredDrops();
        for (CallBuffer b : Recorder.buffers()) {
            sum += b.dropped();
        }
        return sum;
    }

    /**
     * Stops the thread, closes an open capture window, drains what is left (device activity included) and closes
     * the sinks. Once: at {@code aorta detach} or at JVM exit, whichever comes first.
     */
    public void shutdown() {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        CaptureWindows windows = CaptureWindows.current;
        if (windows != null) {
            windows.stop();
        }
        running = false;
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cycle();
        device.flush();
        device.stop();
        synchronized (this) {
            cycle(true);
        }
        join.release(true);
        long dropped = dropped();
        if (dropped > droppedReported) {
            AgentLog.info(dropped + " call records were dropped because a thread's buffer was full (raise buffer-records)");
            droppedReported = dropped;
        }
        long droppedDevice = droppedDeviceRecords();
        if (droppedDevice > 0) {
            AgentLog.info(droppedDevice + " CUPTI records were dropped because the drain thread was "
                    + maxQueuedDeviceRecords + " records behind (device activity and joins are incomplete)");
        }
        if (join.writtenBeforeCuptiCaughtUp() > 0) {
            AgentLog.info(join.writtenBeforeCuptiCaughtUp() + " API records were written before CUPTI's records for their"
                    + " time arrived (" + CorrelationJoin.MAX_HELD + " were waiting), most without cupti_correlation");
        }
        if (join.unjoined() > 0) {
            AgentLog.info(join.unjoined() + " API records made while CUPTI ran matched none of CUPTI's driver calls and"
                    + " were written without cupti_correlation" + (join.pairedByTiming() > 0
                    ? " (" + join.pairedByTiming() + " threads were paired with CUPTI's by timing, their ids unknown)" : ""));
        }
        if (HostClock.conversionError() != null) {
            AgentLog.debug(HostClock.conversionError());
        }
        AgentLog.debug(decoder.decodedCalls() + " calls recorded, " + join.joined() + " joined to CUPTI, "
                + iterations.completed() + " iterations; threads paired with CUPTI's by id " + join.pairedById()
                + ", by timing " + join.pairedByTiming());
        sinks.close();
    }
}
