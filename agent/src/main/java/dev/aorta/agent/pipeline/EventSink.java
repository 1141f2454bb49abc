package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

/** Where decoded records go, on the drain thread only. Every method may throw; {@link GuardedSink} contains it. */
public interface EventSink extends AutoCloseable {
    default void api(ApiCall call, CallKind kind) throws Exception {
    }

    /**
     * A decoded call, as the drain thread hands it over: a reused record, valid during this call only. Sinks that
     * can write it as it is (JSONL) override this and allocate nothing; the others get it as an {@link ApiCall}.
     */
    default void call(CallRecord call) throws Exception {
        api(call.toApiCall(), call.kind());
    }

    default void stream(StreamInfo stream) throws Exception {
    }

    default void dependency(Dependency dependency) throws Exception {
    }

    default void marker(Marker marker) throws Exception {
    }

    default void activity(DeviceActivity activity) throws Exception {
    }

    default void anchor(ClockAnchor anchor) throws Exception {
    }

    /** Called after each drain cycle that delivered records and at each iteration end. */
    default void flush() throws Exception {
    }

    @Override
    default void close() throws Exception {
    }
}
