package dev.aorta.workloads.harness;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fallback when CUPTI is unavailable: in a few sampled iterations, every op is bracketed by two
 * events on its stream. An event completes when its stream reaches it, so a pair measures from the
 * moment the stream was ready for the op to its end: the time waiting for the device to pick the
 * kernel up is inside the "duration", and no 'queued' time exists. Times are ns since an origin event
 * recorded before the first measured iteration (written with the {@code session-relative} clock tag).
 * Events are created up front so that sampling costs only the two records per op.
 */
final class EventPairSampler implements AutoCloseable {
    private final List<GpuEvent[]> pairs = new ArrayList<>();
    private final List<Sample> samples = new ArrayList<>();
    private final Map<GpuStream, Long> streamIds;
    private final GpuSession gpu;
    /** Launch calls made inside the harness's ops of sampled iterations (an op may make several). */
    private long launchesThroughOps;
    private GpuEvent origin;
    private int currentIteration = -1;
    private boolean active;
    private boolean exhausted;

    private record Sample(int iteration, String label, GpuStream stream, GpuEvent start, GpuEvent end) {
    }

    EventPairSampler(GpuSession gpu, int pairCount, Map<GpuStream, Long> streamIds) {
        this.streamIds = streamIds;
        this.gpu = gpu;
        for (int i = 0; i < pairCount; i++) {
            pairs.add(new GpuEvent[] {gpu.createTimingEvent(), gpu.createTimingEvent()});
        }
    }

    void setOrigin(GpuEvent origin) {
        this.origin = origin;
    }

    /** Starts sampling an iteration, or stops sampling when {@code sample} is false. */
    void beginIteration(int iteration, boolean sample) {
        currentIteration = iteration;
        active = sample;
    }

    boolean active() {
        return active;
    }

    void around(String label, GpuStream stream, Runnable launch) {
        long before = gpu.enqueuedWork();
        if (samples.size() == pairs.size()) {
            exhausted = true;
            launch.run();
            launchesThroughOps += gpu.enqueuedWork() - before;
            return;
        }
        GpuEvent[] pair = pairs.get(samples.size());
        pair[0].record(stream);
        launch.run();
        launchesThroughOps += gpu.enqueuedWork() - before;
        pair[1].record(stream);
        samples.add(new Sample(currentIteration, label, stream, pair[0], pair[1]));
    }

    /**
     * Launch calls made inside the harness's ops of sampled iterations: compared with all the calls of those
     * iterations, it shows work that bypassed the ops (the model module's layers launch on their own) and that no
     * event pair could time.
     */
    long launchesThroughOps() {
        return launchesThroughOps;
    }

    /** Whether some ops of sampled iterations went unsampled because the events ran out. */
    boolean exhausted() {
        return exhausted;
    }

    /** One window per sampled iteration; call after the device finished the measured iterations. */
    List<List<DeviceActivity>> windows() {
        List<List<DeviceActivity>> windows = new ArrayList<>();
        int iteration = Integer.MIN_VALUE;
        long correlation = 0;
        for (Sample s : samples) {
            if (s.iteration() != iteration) {
                windows.add(new ArrayList<>());
                iteration = s.iteration();
            }
            long start = Math.round(s.start().elapsedMsSince(origin) * 1e6);
            long end = Math.max(start, Math.round(s.end().elapsedMsSince(origin) * 1e6));
            windows.getLast().add(new DeviceActivity(ActivityKind.KERNEL, s.label(), 0, 0, streamIds.get(s.stream()),
                    start, end, ++correlation, DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE,
                    0, ClockDomain.SESSION_RELATIVE));
        }
        return windows;
    }

    @Override
    public void close() {
        for (GpuEvent[] pair : pairs) {
            pair[0].close();
            pair[1].close();
        }
    }
}
