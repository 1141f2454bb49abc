package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.util.List;

/** Hands every record to each {@link GuardedSink}; never throws. */
public final class Fanout implements EventSink {
    /** An array: a for-each over it needs no iterator, and this runs per record. */
    private final GuardedSink[] sinks;

    public Fanout(List<GuardedSink> sinks) {
        this.sinks = sinks.toArray(new GuardedSink[0]);
    }

    @Override
    public void call(CallRecord call) {
        for (GuardedSink s : sinks) {
            s.call(call);
        }
    }

    @Override
    public void api(ApiCall call, CallKind kind) {
        for (GuardedSink s : sinks) {
            s.api(call, kind);
        }
    }

    @Override
    public void stream(StreamInfo stream) {
        for (GuardedSink s : sinks) {
            s.stream(stream);
        }
    }

    @Override
    public void dependency(Dependency dependency) {
        for (GuardedSink s : sinks) {
            s.dependency(dependency);
        }
    }

    @Override
    public void marker(Marker marker) {
        for (GuardedSink s : sinks) {
            s.marker(marker);
        }
    }

    @Override
    public void activity(DeviceActivity activity) {
        for (GuardedSink s : sinks) {
            s.activity(activity);
        }
    }

    @Override
    public void anchor(ClockAnchor anchor) {
        for (GuardedSink s : sinks) {
            s.anchor(anchor);
        }
    }

    @Override
    public void flush() {
        for (GuardedSink s : sinks) {
            s.flush();
        }
    }

    @Override
    public void close() {
        for (GuardedSink s : sinks) {
            s.close();
        }
    }
}
