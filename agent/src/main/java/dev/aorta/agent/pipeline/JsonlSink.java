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

/**
 * {@code rank_<r>_activity.jsonl}: every record, one line each (schema: {@code dev.aorta.core.jsonl.EventJsonl}),
 * formatted on a {@link JsonlWriterThread} in the order the drain thread hands them over.
 */
public final class JsonlSink implements EventSink {
    private final JsonlWriterThread out;

    /**
     * Opens (truncates) the file; the writer buffers, so the file stream needs no buffer of its own. A
     * {@link FileOutputStream}, as it writes a byte array without wrapping it (a channel's stream allocates a
     * ByteBuffer per write).
     */
    public JsonlSink(Path path) throws IOException {
        this.out = new JsonlWriterThread(new EventJsonlWriter(new FileOutputStream(path.toFile())),
                "aorta-jsonl-" + path.getFileName());
    }

    @Override
    public void api(ApiCall call, CallKind kind) throws IOException {
        out.api(call, window(call.startNs()));
    }

    /** Copied into the writer's ring from the reused record: no object per line. */
    @Override
    public void call(CallRecord call) throws IOException {
        out.call(call, window(call.startNs()));
    }

    /** Read here, on the drain thread, where the windows' edges were settled before the record was taken. */
    private static long window(long startNs) {
        CaptureWindows windows = CaptureWindows.current;
        return windows == null ? -1 : windows.windowAt(startNs);
    }

    @Override
    public void stream(StreamInfo stream) throws IOException {
        out.record(stream);
    }

    @Override
    public void dependency(Dependency dependency) throws IOException {
        out.record(dependency);
    }

    @Override
    public void marker(Marker marker) throws IOException {
        out.record(marker);
    }

    @Override
    public void activity(DeviceActivity activity) throws IOException {
        out.record(activity);
    }

    @Override
    public void anchor(ClockAnchor anchor) throws IOException {
        out.record(anchor);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    /** Waits for every line handed over to be written, then closes the file. */
    @Override
    public void close() throws IOException {
        out.close();
    }
}
