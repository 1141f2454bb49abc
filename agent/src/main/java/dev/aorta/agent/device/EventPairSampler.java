package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.jcuda.JCudaNatives;
import dev.aorta.agent.jcuda.LaunchPathNatives;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Device activity without CUPTI (JVM 17–21, or no aorta-gpu CUPTI binding): every Nth kernel launch of each
 * stream ({@link StreamCountdowns}) is bracketed by two timed events on its stream, recorded through JCuda's natives.
 * Event A completes when the stream reaches the kernel, event B when the kernel is done.
 *
 * <p>Durations: on an idle stream A would complete as soon as it is submitted, microseconds before the kernel is, and
 * B - A would include the host's submission gap. So the sampled stream first waits on a gate (a word of pinned,
 * device-mapped host memory, {@link ContextSlots}), and the launching thread opens it right after recording B: A, the
 * kernel and B then run back to back. B - A still holds the device's own launch and retirement of the kernel, 3.2-3.7
 * µs more than CUPTI's interval of it on an H100, and any wait for SMs that other streams hold: an estimate of the
 * kernel's duration, not its exact value. A stream still busy when it reaches the gate finds it open and does not
 * stall. The gate is opened on every way out of the launch (an error, an exception) and by the drain's watchdog for a slot
 * armed longer than {@link #GATE_WATCHDOG_NS} (a thread that never came back). A device without stream memory
 * operations has no gate: durations then include the submission gap on idle streams (the agent says so once).
 *
 * <p>Start times are estimates: A's distance from a reference event gives the host time. References are recorded on
 * an idle stream of the agent's own (per context) and waited for at once, so their host time is known to a few µs;
 * a new one is taken every few seconds while no sample is in flight, because cuEventElapsedTime's float
 * milliseconds lose resolution as the distance grows. The sampled activity carries the agent's own correlation id
 * of the launch it measured.
 *
 * <p>The launch path takes no lock and allocates nothing: event pairs are made per context when its first launch
 * is sampled, a slot is claimed and handed to the drain by atomic state changes, and the drain queries completed
 * pairs without ever holding anything the launching thread needs. A sampled launch makes four driver calls besides
 * its own (current context, capture status, the gate's wait, event A) and one after it (event B); a launch being
 * captured into a graph is never sampled.
 *
 * <p>Only every Nth kernel is seen, and copies/memsets not at all: overlap numbers from this source describe the
 * sample (the metrics name the source as {@code events(1/N)}).
 */
public final class EventPairSampler implements DeviceActivitySource {
    /** Read by launch advice: false unless installed. */
    public static volatile boolean enabled;
    private static volatile EventPairSampler instance;
    static final int NON_BLOCKING = 1;
    /** Re-reference when the reference is older than this and no sample of its context is in flight. */
    static final long REFERENCE_AGE_NS = 5_000_000_000L;
    /** A gate armed this long is opened by the drain: its launching thread is gone (or stalled for that long). */
    static final long GATE_WATCHDOG_NS = 1_000_000_000L;
    /** CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS(_V1): cuStreamWaitValue32 is supported. */
    static final int CAN_USE_STREAM_MEM_OPS = 92;

    private final int every;
    private final StreamCountdowns countdowns;
    private final int rank;
    private final Consumer<DeviceActivity> out;
    private final Object setupLock = new Object();
    private final Object drainLock = new Object();
    private volatile LaunchPathNatives launchPath;
    private JCudaNatives cu;
    /** Append-only: a sample's id is its context's index here times {@link ContextSlots#SLOTS} plus its slot. */
    private volatile ContextSlots[] contexts = new ContextSlots[0];
    private final ThreadLocal<Object> contextHandle = ThreadLocal.withInitial(() -> launchPath.context());
    private volatile boolean failed;
    private boolean overflowReported;
    private boolean watchdogReported;

    private EventPairSampler(int every, int rank, Consumer<DeviceActivity> out) {
        this.every = every;
        this.countdowns = new StreamCountdowns(every);
        this.rank = rank;
        this.out = out;
    }

    public static EventPairSampler install(int every, int rank, Consumer<DeviceActivity> out) {
        EventPairSampler s = new EventPairSampler(every, rank, out);
        instance = s;
        enabled = true;
        return s;
    }

    /** Hot path: true for the first and then every Nth launch on {@code stream}. */
    public static boolean due(long stream) {
        return instance.countdowns.due(stream);
    }

    /**
     * Before a sampled launch (its context current): gates the stream and records event A; returns the sample's id
     * or -1 (nothing to undo then). Never throws, and leaves no gate closed when it returns -1.
     */
    public static int before(long stream) {
        EventPairSampler s = instance;
        return s == null ? -1 : s.recordBefore(stream);
    }

    /**
     * Before cuCtxDestroy: the context's completed samples are delivered, its armed gates opened, the rest dropped, and
     * its event pairs forgotten (the driver frees them with the context), so that a new context at the same address
     * gets pairs of its own. Nothing when sampling is not installed or never saw the context.
     */
    public static void contextDestroying(long context) {
        EventPairSampler s = instance;
        if (s != null && context != 0) {
            s.forget(context);
        }
    }

    /**
     * After the sampled launch, whatever its outcome (call it before the launch is recorded): records event B and
     * hands the sample to the drain when {@code launched}, and opens the gate in every case; nothing for -1.
     */
    public static void after(int sample, long stream, long function, int gridX, int blockX, boolean launched) {
        EventPairSampler s = instance;
        if (s != null && sample >= 0) {
            s.recordAfter(sample, stream, function, gridX, blockX, launched);
        }
    }

    private int recordBefore(long stream) {
        if (failed) {
            return -1;
        }
        try {
            LaunchPathNatives n = launchPath != null ? launchPath : setUp();
            long context = n.currentContext(contextHandle.get());
            int index = indexOf(context);
            if (index < 0) {
                index = addContext(context);
            }
            ContextSlots c = contexts[index];
            int slot = c.claim();
            if (slot < 0) {
                return -1;
            }
            try {
                Object streamHandle = c.streamHandle[slot];
                NativeAddress.set(streamHandle, stream);
                if (n.capturing(streamHandle, c.captureStatus[slot])) {
                    // a launch being captured into a graph runs later, as part of the graph: not measurable here
                    c.state.set(slot, ContextSlots.FREE);
                    return -1;
                }
                int value = c.arm(slot, System.nanoTime());
                if (c.gate != null) {
                    n.waitAtLeast(streamHandle, c.gateWordHandle[slot], value);
                }
                n.recordEvent(c.eventAHandle[slot], streamHandle);
                return index * ContextSlots.SLOTS + slot;
            } catch (Throwable t) {
                c.openGate(slot);
                c.state.set(slot, ContextSlots.FREE);
                throw t;
            }
        } catch (Throwable t) {
            fail(t);
            return -1;
        }
    }

    private void recordAfter(int sample, long stream, long function, int gridX, int blockX, boolean launched) {
        ContextSlots c = contexts[sample / ContextSlots.SLOTS];
        int slot = sample % ContextSlots.SLOTS;
        if (!c.state.compareAndSet(slot, ContextSlots.ARMED, ContextSlots.RECORDING)) {
            // the watchdog opened this gate and gave the sample up while the launch took that long: the slot is ours
            c.state.set(slot, ContextSlots.FREE);
            return;
        }
        boolean keep = launched && !failed;
        Throwable error = null;
        if (keep) {
            try {
                launchPath.recordEvent(c.eventBHandle[slot], c.streamHandle[slot]);
            } catch (Throwable t) {
                keep = false;
                error = t;
            }
        }
        // B is queued behind the kernel: opening now lets A, the kernel and B run back to back. Opened before the
        // slot is handed on, so that it opens this sample's gate and not the next owner's.
        c.openGate(slot);
        if (keep) {
            c.stream[slot] = stream;
            c.function[slot] = function;
            c.gridX[slot] = gridX;
            c.blockX[slot] = blockX;
            c.correlation[slot] = Recorder.nextCorrelationId();
            c.state.set(slot, ContextSlots.PENDING);
        } else {
            c.state.set(slot, ContextSlots.FREE);
        }
        if (error != null) {
            fail(error);
        }
    }

    private int indexOf(long context) {
        ContextSlots[] all = contexts;
        for (int i = 0; i < all.length; i++) {
            if (all[i] != ContextSlots.RETIRED && all[i].context == context) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Lets go of a context about to be destroyed. Its index stays taken by {@link ContextSlots#RETIRED}, whose slots
     * are all free, so that a launch still between its two halves on it (a race the application made) frees nothing.
     */
    private void forget(long context) {
        synchronized (setupLock) {
            int index = indexOf(context);
            if (index < 0) {
                return;
            }
            ContextSlots c = contexts[index];
            synchronized (drainLock) {
                for (int slot = 0; slot < ContextSlots.SLOTS; slot++) {
                    if (c.state.get(slot) == ContextSlots.PENDING) {
                        try {
                            if (!failed && cu.eventDone(c.eventB[slot])) {
                                deliver(c, slot);
                            }
                        } catch (RuntimeException e) {
                            // the context's last samples are lost with it
                        }
                        c.state.set(slot, ContextSlots.FREE);
                    }
                }
                abandonArmed(c);
                ContextSlots[] all = contexts.clone();
                all[index] = ContextSlots.RETIRED;
                contexts = all;
            }
        }
    }

    private LaunchPathNatives setUp() throws ReflectiveOperationException {
        synchronized (setupLock) {
            if (launchPath == null) {
                cu = new JCudaNatives();
                launchPath = new LaunchPathNatives();
            }
            return launchPath;
        }
    }

    /** The context's first sampled launch: its event pairs, gate and reference (once per context). */
    private int addContext(long context) {
        synchronized (setupLock) {
            int index = indexOf(context);
            if (index >= 0) {
                return index;
            }
            int device = cu.currentDevice();
            long referenceStream = cu.createDriverStream(NON_BLOCKING, 0);
            long referenceEvent = cu.createTimedEvent();
            JCudaNatives.MappedWords gate = gate(device, referenceStream, referenceEvent);
            ContextSlots c = new ContextSlots(context, device, gate == null ? null : gate.host(),
                    gate == null ? 0 : gate.deviceAddress(), referenceEvent, referenceStream);
            for (int slot = 0; slot < ContextSlots.SLOTS; slot++) {
                c.eventA[slot] = cu.createTimedEvent();
                c.eventB[slot] = cu.createTimedEvent();
                c.eventAHandle[slot] = launchPath.event(c.eventA[slot]);
                c.eventBHandle[slot] = launchPath.event(c.eventB[slot]);
                c.streamHandle[slot] = launchPath.stream(0);
                c.gateWordHandle[slot] = launchPath.devicePointer(c.gateWordDeviceAddress(slot));
            }
            reference(c);
            ContextSlots[] all = Arrays.copyOf(contexts, contexts.length + 1);
            all[all.length - 1] = c;
            contexts = all;
            return all.length - 1;
        }
    }

    /**
     * The gate's words, or null (with the reason logged) where the device cannot wait on memory. Where the attribute
     * says no, a wait that is already satisfied, on the agent's own stream, decides: CUDA 12 drivers may support
     * the wait without the (deprecated) attribute.
     */
    private JCudaNatives.MappedWords gate(int device, long ownStream, long ownEvent) {
        try {
            JCudaNatives.MappedWords words = cu.mappedWords(ContextSlots.SLOTS);
            if (cu.deviceAttribute(CAN_USE_STREAM_MEM_OPS, device) != 1) {
                launchPath.waitAtLeast(launchPath.stream(ownStream), launchPath.devicePointer(words.deviceAddress()), 0);
                cu.recordEvent(ownEvent, ownStream);
                cu.synchronizeEvent(ownEvent);
            }
            AgentLog.info("sampled event pairs on device " + device + ": gated (stream memory operations),"
                    + " so that event A, the kernel and event B run back to back");
            return words;
        } catch (RuntimeException e) {
            AgentLog.info("sampled event pairs on device " + device + ": no gate (" + e.getMessage() + "); a sampled"
                    + " kernel's duration includes the host's submission gap when its stream was idle");
            return null;
        }
    }

    /** Records the reference on the agent's idle stream and notes when it completed. */
    private void reference(ContextSlots c) {
        cu.recordEvent(c.referenceEvent, c.referenceStream);
        cu.synchronizeEvent(c.referenceEvent);
        c.referenceHostNs = System.nanoTime();
    }

    @Override
    public String name() {
        return "events(1/" + every + ")";
    }

    /** Every drain cycle: turns completed pairs into device activity, and opens gates left armed too long. */
    @Override
    public void poll() {
        synchronized (drainLock) {
            if (!overflowReported && countdowns.overflowed()) {
                overflowReported = true;
                AgentLog.info("sampled event pairs: more than " + StreamCountdowns.CAPACITY + " streams launched"
                        + " kernels; the streams beyond share one sampling countdown");
            }
            for (ContextSlots c : contexts) {
                if (c == ContextSlots.RETIRED) {
                    continue;
                }
                try {
                    drain(c);
                } catch (Throwable t) {
                    fail(t);
                }
            }
        }
    }

    private void drain(ContextSlots c) {
        boolean inFlight = false;
        long now = System.nanoTime();
        for (int slot = 0; slot < ContextSlots.SLOTS; slot++) {
            int state = c.state.get(slot);
            if (state == ContextSlots.PENDING) {
                inFlight = true;
                if (!failed && cu.eventDone(c.eventB[slot])) {
                    deliver(c, slot);
                    c.state.set(slot, ContextSlots.FREE);
                }
            } else if (state == ContextSlots.ARMED) {
                inFlight = true;
                if (now - c.armedAt[slot] > GATE_WATCHDOG_NS) {
                    abandon(c, slot);
                }
            } else if (state == ContextSlots.CLAIMED || state == ContextSlots.RECORDING) {
                inFlight = true;
            }
        }
        if (!inFlight && !failed && now - c.referenceHostNs > REFERENCE_AGE_NS) {
            cu.setCurrentContext(c.context);
            reference(c);
        }
    }

    private void deliver(ContextSlots c, int slot) {
        long start = c.referenceHostNs + Math.round(cu.elapsedMs(c.referenceEvent, c.eventA[slot]) * 1e6);
        // the duration from A to B directly: exact however old the reference is
        long duration = Math.max(0, Math.round(cu.elapsedMs(c.eventA[slot], c.eventB[slot]) * 1e6));
        out.accept(new DeviceActivity(ActivityKind.KERNEL, "kernel@0x" + Long.toHexString(c.function[slot]), rank,
                c.device, c.stream[slot], start, start + duration, c.correlation[slot], DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, new Dim3(c.gridX[slot], 1, 1), new Dim3(c.blockX[slot], 1, 1), 0,
                ClockDomain.HOST_MONOTONIC));
    }

    /** Opens an armed gate whose launching thread has not come back; that thread, if alive, frees the slot. */
    private void abandon(ContextSlots c, int slot) {
        if (c.state.compareAndSet(slot, ContextSlots.ARMED, ContextSlots.ABANDONED)) {
            c.openGate(slot);
            if (!watchdogReported) {
                watchdogReported = true;
                AgentLog.info("sampled event pairs: a launch did not come back within "
                        + GATE_WATCHDOG_NS / 1_000_000 + " ms of its event A; its stream's gate was opened and the"
                        + " sample dropped (reported once)");
            }
        }
    }

    @Override
    public void flush() {
        poll();
    }

    /** Delivers what has completed and opens every gate still armed: no drain will watch them any more. */
    @Override
    public void stop() {
        enabled = false;
        poll();
        synchronized (drainLock) {
            for (ContextSlots c : contexts) {
                abandonArmed(c);
            }
        }
    }

    /** Opens every gate of the context still armed: no drain will watch them any more. */
    private void abandonArmed(ContextSlots c) {
        for (int slot = 0; slot < ContextSlots.SLOTS; slot++) {
            if (c.state.get(slot) == ContextSlots.ARMED) {
                abandon(c, slot);
            }
        }
    }

    @Override
    public void pause() {
        poll();
        enabled = false;
    }

    /** Sampling starts again unless it failed for good. */
    @Override
    public void resume() {
        enabled = !failed;
    }

    private void fail(Throwable t) {
        if (!failed) {
            failed = true;
            enabled = false;
            AgentLog.error("sampled event pairs failed (" + t + "); no further device timestamps");
        }
    }
}
