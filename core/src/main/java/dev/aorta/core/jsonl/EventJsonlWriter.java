package dev.aorta.core.jsonl;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.Writer;
import java.util.Map;

/** Writes event records as {@link EventJsonl} lines. One line per record, so a killed run loses at most the last. */
public final class EventJsonlWriter implements Closeable, Flushable {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private final Writer out;
    private final JsonGenerator json;

    public EventJsonlWriter(Writer out) throws IOException {
        this.out = out;
        this.json = FACTORY.createGenerator(out);
        json.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
        json.configure(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM, false);
    }

    public void write(DeviceActivity a) throws IOException {
        begin("activity");
        json.writeStringField("kind", a.kind().name());
        json.writeStringField("name", a.name());
        json.writeNumberField("rank", a.rank());
        json.writeNumberField("device", a.device());
        json.writeNumberField("stream", a.stream());
        json.writeNumberField("start", a.startNs());
        json.writeNumberField("end", a.endNs());
        json.writeNumberField("correlation", a.correlationId());
        if (a.queuedNs() != DeviceActivity.UNKNOWN) {
            json.writeNumberField("queued", a.queuedNs());
        }
        if (a.submittedNs() != DeviceActivity.UNKNOWN) {
            json.writeNumberField("submitted", a.submittedNs());
        }
        dim("grid", a.grid());
        dim("block", a.block());
        if (a.bytes() != 0) {
            json.writeNumberField("bytes", a.bytes());
        }
        json.writeStringField("clock", a.clock().tag());
        end();
    }

    public void write(ApiCall c) throws IOException {
        begin("api");
        json.writeStringField("name", c.name());
        json.writeNumberField("thread", c.thread());
        json.writeNumberField("stream", c.stream());
        json.writeNumberField("start", c.startNs());
        json.writeNumberField("end", c.endNs());
        json.writeNumberField("correlation", c.correlationId());
        json.writeNumberField("result", c.result());
        if (!c.args().isEmpty()) {
            json.writeObjectFieldStart("args");
            for (Map.Entry<String, Object> e : c.args().entrySet()) {
                writeScalar(e.getKey(), e.getValue());
            }
            json.writeEndObject();
        }
        json.writeStringField("clock", c.clock().tag());
        end();
    }

    public void write(StreamInfo s) throws IOException {
        begin("stream");
        json.writeNumberField("id", s.id());
        json.writeNumberField("device", s.device());
        json.writeNumberField("priority", s.priority());
        json.writeNumberField("flags", s.flags());
        if (s.role() != null) {
            json.writeStringField("role", s.role());
        }
        end();
    }

    public void write(Marker m) throws IOException {
        begin("marker");
        json.writeStringField("kind", m.kind().name());
        json.writeStringField("name", m.name());
        json.writeNumberField("rank", m.rank());
        json.writeNumberField("step", m.step());
        json.writeNumberField("start", m.startNs());
        json.writeNumberField("end", m.endNs());
        json.writeStringField("clock", m.clock().tag());
        end();
    }

    public void write(Dependency d) throws IOException {
        begin("dependency");
        json.writeNumberField("event", d.event());
        json.writeNumberField("record_stream", d.recordStream());
        json.writeNumberField("record", d.recordNs());
        json.writeNumberField("wait_stream", d.waitStream());
        json.writeNumberField("wait", d.waitNs());
        json.writeStringField("clock", d.clock().tag());
        end();
    }

    public void write(ClockAnchor a) throws IOException {
        begin("anchor");
        json.writeStringField("from", a.from().tag());
        json.writeNumberField("from_ns", a.fromNs());
        json.writeStringField("to", a.to().tag());
        json.writeNumberField("to_ns", a.toNs());
        end();
    }

    private void begin(String type) throws IOException {
        json.writeStartObject();
        json.writeStringField(EventJsonl.TYPE, type);
    }

    private void end() throws IOException {
        json.writeEndObject();
        json.flush();
        out.write('\n');
    }

    private void dim(String field, Dim3 d) throws IOException {
        if (d == null || d.equals(Dim3.NONE)) {
            return;
        }
        json.writeArrayFieldStart(field);
        json.writeNumber(d.x());
        json.writeNumber(d.y());
        json.writeNumber(d.z());
        json.writeEndArray();
    }

    private void writeScalar(String key, Object v) throws IOException {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            json.writeNumberField(key, ((Number) v).longValue());
        } else if (v instanceof Number n) {
            json.writeNumberField(key, n.doubleValue());
        } else if (v instanceof Boolean b) {
            json.writeBooleanField(key, b);
        } else {
            json.writeStringField(key, String.valueOf(v));
        }
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        json.close();
        out.close();
    }
}
