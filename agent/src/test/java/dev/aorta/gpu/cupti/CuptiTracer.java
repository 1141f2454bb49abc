package dev.aorta.gpu.cupti;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import example.fakegpu.FakeGpu;

import java.util.function.Consumer;

/**
 * Test double of the aorta-gpu CUPTI tracer (same constructor and methods): delivers the fake device's
 * finished work as {@link DeviceActivity} records in a CUPTI clock that runs {@link FakeGpu#CUPTI_OFFSET}
 * ahead of the host clock.
 */
public final class CuptiTracer {
    private final Consumer<DeviceActivity> sink;
    private long correlation;

    public CuptiTracer(Consumer<DeviceActivity> sink) {
        this.sink = sink;
    }

    public static long timestampNs() {
        return System.nanoTime() + FakeGpu.CUPTI_OFFSET;
    }

    public void start() {
    }

    public void flush() {
        for (FakeGpu.Work w : FakeGpu.takeFinished()) {
            sink.accept(new DeviceActivity(ActivityKind.valueOf(w.kind()), w.name(), 0, 0, w.stream(),
                    w.start() + FakeGpu.CUPTI_OFFSET, w.end() + FakeGpu.CUPTI_OFFSET, ++correlation,
                    w.start() + FakeGpu.CUPTI_OFFSET - 1000, w.start() + FakeGpu.CUPTI_OFFSET - 500,
                    new Dim3(w.gridX(), 1, 1), new Dim3(w.blockX(), 1, 1), w.bytes(), ClockDomain.CUPTI));
        }
    }

    public void stop() {
        flush();
    }
}
