package dev.aorta.gpu.cupti;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import example.fakegpu.FakeGpu;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Test double of the aorta-gpu CUPTI tracer (same static factory and methods): delivers the fake device's
 * finished work as {@link DeviceActivity} records, and the driver API calls behind them as {@link ApiCall}
 * records with the same correlation ids (when asked), in a CUPTI clock running {@link FakeGpu#CUPTI_OFFSET}
 * ahead of the host clock. Its "OS thread ids" are Java thread ids + 100000, as real ones differ too.
 */
public final class CuptiTracer {
    private final Consumer<DeviceActivity> activities;
    private final Consumer<ApiCall> apiCalls;
    private final boolean latency;

    private CuptiTracer(Consumer<DeviceActivity> activities, Consumer<ApiCall> apiCalls, boolean latency) {
        this.activities = activities;
        this.apiCalls = apiCalls;
        this.latency = latency;
    }

    public static CuptiTracer start(Consumer<DeviceActivity> activities, Consumer<ApiCall> apiCalls, int rank,
                                    boolean latencyTimestamps) {
        return new CuptiTracer(activities, apiCalls, latencyTimestamps);
    }

    public static long timestampNs() {
        return System.nanoTime() + FakeGpu.CUPTI_OFFSET;
    }

    public static ClockAnchor anchor() {
        long host = System.nanoTime();
        return new ClockAnchor(ClockDomain.CUPTI, host + FakeGpu.CUPTI_OFFSET, ClockDomain.HOST_MONOTONIC, host);
    }

    public void registerStream(long context, long stream) {
        FakeGpu.streamRegistered(stream);
    }

    public void flush() {
        long o = FakeGpu.CUPTI_OFFSET;
        for (FakeGpu.Work w : FakeGpu.takeFinished()) {
            if (apiCalls != null) {
                apiCalls.accept(new ApiCall(w.api(), w.thread() + 100_000, 0, w.apiStart() + o, w.apiEnd() + o,
                        w.correlation(), 0, Map.of(), ClockDomain.CUPTI));
            }
            activities.accept(new DeviceActivity(ActivityKind.valueOf(w.kind()), w.name(), 0, 0, w.stream(),
                    w.start() + o, w.end() + o, w.correlation(),
                    latency ? w.apiEnd() + o : DeviceActivity.UNKNOWN, latency ? w.apiEnd() + o + 200 : DeviceActivity.UNKNOWN,
                    new Dim3(w.gridX(), 1, 1), new Dim3(w.blockX(), 1, 1), w.bytes(), ClockDomain.CUPTI));
        }
    }

    /** The real one delivers CUPTI's filled buffers; here every buffer counts as filled. */
    public void deliverCompleted() {
        flush();
    }

    public void stop() {
        flush();
    }
}
