package dev.aorta.agent.pipeline;

import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.jsonl.EventJsonlWriter;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/** {@code rank_<r>_activity.jsonl}: every record, one line each (schema: {@code dev.aorta.core.jsonl.EventJsonl}). */
public final class JsonlSink implements EventSink {
    private final EventJsonlWriter out;

    /**
     * Opens (truncates) the file; the writer buffers, so the file stream needs no buffer of its own. A
     * {@link FileOutputStream}, as it writes a byte array without wrapping it (a channel's stream allocates a
     * ByteBuffer per write).
     */
    public JsonlSink(Path path) throws IOException {
        this.out = new EventJsonlWriter(new FileOutputStream(path.toFile()));
    }

    @Override
    public void api(ApiCall call, CallKind kind) throws IOException {
        out.write(call, window(call.startNs()));
    }

    /** Written straight from the reused record: no object per line. */
    @Override
    public void call(CallRecord call) throws IOException {
        call.writeTo(out, window(call.startNs()));
    }

    private static long window(long startNs) {
        CaptureWindows windows = CaptureWindows.current;
        return windows == null ? -1 : windows.windowAt(startNs);
    }

    @Override
    public void stream(StreamInfo stream) throws IOException {
        out.write(stream);
    }

    @Override
    public void dependency(Dependency dependency) throws IOException {
        out.write(dependency);
    }

    @Override
    public void marker(Marker marker) throws IOException {
        out.write(marker);
    }

    @Override
    public void activity(DeviceActivity activity) throws IOException {
        out.write(activity);
    }

    @Override
    public void anchor(ClockAnchor anchor) throws IOException {
        out.write(anchor);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
