package dev.aorta.agent.pipeline;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

/**
 * Contains a sink's failures: the first one is logged (one line naming the sink) and the sink is switched
 * off, so that a full disk or a bug in one sink neither reaches the application nor silences the others.
 */
public final class GuardedSink implements EventSink {
    private final String name;
    private final EventSink delegate;
    private volatile boolean failed;

    public GuardedSink(String name, EventSink delegate) {
        this.name = name;
        this.delegate = delegate;
    }

    public boolean failed() {
        return failed;
    }

    private interface Action {
        void run() throws Exception;
    }

    private void guard(Action a) {
        if (failed) {
            return;
        }
        try {
            a.run();
        } catch (Throwable t) {
            fail(t);
        }
    }

    private void fail(Throwable t) {
        failed = true;
        AgentLog.error("sink '" + name + "' failed (" + t + "); it is switched off, the application and other sinks go on");
        try {
            delegate.close();
        } catch (Throwable ignored) {
            // already reported the cause; a second failure while closing adds nothing
        }
    }

    /** Per record: guarded inline, as a capturing lambda would cost an allocation each time. */
    @Override
    public void call(CallRecord call) {
        if (failed) {
            return;
        }
        try {
            delegate.call(call);
        } catch (Throwable t) {
            fail(t);
        }
    }

    @Override
    public void api(ApiCall call, CallKind kind) {
        guard(() -> delegate.api(call, kind));
    }

    @Override
    public void stream(StreamInfo stream) {
        guard(() -> delegate.stream(stream));
    }

    @Override
    public void dependency(Dependency dependency) {
        guard(() -> delegate.dependency(dependency));
    }

    @Override
    public void marker(Marker marker) {
        guard(() -> delegate.marker(marker));
    }

    @Override
    public void activity(DeviceActivity activity) {
        guard(() -> delegate.activity(activity));
    }

    @Override
    public void anchor(ClockAnchor anchor) {
        guard(() -> delegate.anchor(anchor));
    }

    @Override
    public void flush() {
        guard(delegate::flush);
    }

    @Override
    public void close() {
        guard(delegate::close);
    }
}
