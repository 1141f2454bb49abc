package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.jcuda.JCudaNatives;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Device activity without CUPTI (JVM 17–21, or no aorta-gpu CUPTI binding): every Nth kernel launch of each
 * stream ({@link StreamCountdowns}) is bracketed by two timed events on its stream, recorded through JCuda's natives. Event A completes when
 * the stream reaches the kernel, event B when the kernel is done; their times relative to a reference
 * event give the kernel's device interval on the host clock. References are recorded on an idle stream of
 * the agent's own (per context) and waited for at once, so their host time is known to a few µs without
 * stalling the application; a new one is taken every few seconds, because cuEventElapsedTime's float
 * milliseconds lose resolution as the distance grows. The sampled activity carries the agent's own
 * correlation id of the launch it measured.
 *
 * <p>Only every Nth kernel is seen, and copies/memsets not at all: overlap numbers from this source
 * describe the sample (the metrics name the source as {@code events(1/N)}).
 */
public final class EventPairSampler implements DeviceActivitySource {
    /** Read by launch advice: false unless installed. */
    public static volatile boolean enabled;
    private static volatile EventPairSampler instance;
    static final int MAX_PAIRS = 256;
    static final int NON_BLOCKING = 1;

    private final int every;
    private final StreamCountdowns countdowns;
    private final int rank;
    private final Consumer<DeviceActivity> out;
    private JCudaNatives cu;
    private final long[][] pairs = new long[MAX_PAIRS][];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private final ArrayDeque<Sample> pending = new ArrayDeque<>();
    /** Re-reference when the reference is older than this and nothing is pending. */
    static final long REFERENCE_AGE_NS = 5_000_000_000L;
    /** Per context: {reference event, host ns at which it completed, the agent's idle stream}. */
    private final Map<Long, long[]> references = new HashMap<>();
    private boolean failed;
    private boolean overflowReported;

    private record Sample(int slot, long context, int device, long stream, long function, long correlation,
                          int gridX, int blockX) {
    }

    private EventPairSampler(int every, int rank, Consumer<DeviceActivity> out) {
        this.every = every;
        this.countdowns = new StreamCountdowns(every);
        this.rank = rank;
        this.out = out;
        for (int i = 0; i < MAX_PAIRS; i++) {
            free.add(i);
        }
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

    /** Before a sampled launch (its context current): records event A; returns the pair's slot or -1. */
    public static int before(long stream) {
        EventPairSampler s = instance;
        return s == null ? -1 : s.recordBefore(stream);
    }

    /** After the sampled launch: records event B and queues the pair; call before the launch is recorded. */
    public static void after(int slot, long stream, long function, int gridX, int blockX) {
        EventPairSampler s = instance;
        if (s != null) {
            s.recordAfter(slot, stream, function, gridX, blockX);
        }
    }

    private synchronized int recordBefore(long stream) {
        if (failed || free.isEmpty()) {
            return -1;
        }
        try {
            if (cu == null) {
                cu = new JCudaNatives();
            }
            if (cu.capturing(stream)) {
                // a launch being captured into a graph runs later, as part of the graph: not measurable here
                return -1;
            }
            long context = cu.currentContext();
            if (!references.containsKey(context)) {
                long[] ref = {cu.createTimedEvent(), 0, cu.createDriverStream(NON_BLOCKING, 0)};
                reference(ref);
                references.put(context, ref);
            }
            int slot = free.poll();
            if (pairs[slot] == null) {
                pairs[slot] = new long[] {cu.createTimedEvent(), cu.createTimedEvent(), context, cu.currentDevice()};
            } else {
                pairs[slot][2] = context;
                pairs[slot][3] = cu.currentDevice();
            }
            cu.recordEvent(pairs[slot][0], stream);
            return slot;
        } catch (Throwable t) {
            fail(t);
            return -1;
        }
    }

    private synchronized void recordAfter(int slot, long stream, long function, int gridX, int blockX) {
        try {
            cu.recordEvent(pairs[slot][1], stream);
            pending.add(new Sample(slot, pairs[slot][2], (int) pairs[slot][3], stream, function,
                    Recorder.nextCorrelationId(), gridX, blockX));
        } catch (Throwable t) {
            free.add(slot);
            fail(t);
        }
    }

    /** Records the reference on the agent's idle stream and notes when it completed. */
    private void reference(long[] ref) {
        cu.recordEvent(ref[0], ref[2]);
        cu.synchronizeEvent(ref[0]);
        ref[1] = System.nanoTime();
    }

    @Override
    public String name() {
        return "events(1/" + every + ")";
    }

    /** Every drain cycle: turns completed pairs into device activity. */
    @Override
    public synchronized void poll() {
        if (cu == null || failed) {
            return;
        }
        if (!overflowReported && countdowns.overflowed()) {
            overflowReported = true;
            AgentLog.info("sampled event pairs: more than " + StreamCountdowns.CAPACITY + " streams launched kernels;"
                    + " the streams beyond share one sampling countdown");
        }
        long current = 0;
        try {
            if (pending.isEmpty()) {
                for (Map.Entry<Long, long[]> r : references.entrySet()) {
                    if (System.nanoTime() - r.getValue()[1] > REFERENCE_AGE_NS) {
                        cu.setCurrentContext(r.getKey());
                        reference(r.getValue());
                    }
                }
                return;
            }
            for (Iterator<Sample> it = pending.iterator(); it.hasNext(); ) {
                Sample s = it.next();
                if (s.context != current) {
                    cu.setCurrentContext(s.context);
                    current = s.context;
                }
                long[] pair = pairs[s.slot];
                if (!cu.eventDone(pair[1])) {
                    continue;
                }
                long[] ref = references.get(s.context);
                long start = ref[1] + Math.round(cu.elapsedMs(ref[0], pair[0]) * 1e6);
                long end = ref[1] + Math.round(cu.elapsedMs(ref[0], pair[1]) * 1e6);
                out.accept(new DeviceActivity(ActivityKind.KERNEL, "kernel@0x" + Long.toHexString(s.function), rank,
                        s.device, s.stream, start, Math.max(start, end), s.correlation, DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, new Dim3(s.gridX, 1, 1), new Dim3(s.blockX, 1, 1), 0,
                        ClockDomain.HOST_MONOTONIC));
                it.remove();
                free.add(s.slot);
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    @Override
    public void flush() {
        poll();
    }

    @Override
    public void stop() {
        poll();
        enabled = false;
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
        failed = true;
        enabled = false;
        AgentLog.error("sampled event pairs failed (" + t + "); no further device timestamps");
    }
}
