package dev.aorta.core.jsonl;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes event records as {@link EventJsonl} lines. One line per record, so a killed run loses at most the last.
 *
 * <p>It is the agent's drain thread's main cost at high launch rates (CUPTI adds a kernel record per launch), so
 * it writes UTF-8 bytes straight into the stream's buffer, with field names encoded once and the few distinct
 * string values (API and kernel names, kinds, clock tags) encoded once each.
 */
public final class EventJsonlWriter implements Closeable, Flushable {
    /** No separator between root values: each line ends with the newline {@link #end} writes. */
    private static final JsonFactory FACTORY = new JsonFactoryBuilder().rootValueSeparator((String) null).build();
    /** Distinct string values kept encoded; beyond, the cache starts over (names are few in practice). */
    static final int MAX_CACHED_VALUES = 4096;
    private static final SerializableString TYPE = new SerializedString(EventJsonl.TYPE);
    private static final SerializableString TYPE_ACTIVITY = new SerializedString("activity");
    private static final SerializableString TYPE_API = new SerializedString("api");
    private static final SerializableString TYPE_STREAM = new SerializedString("stream");
    private static final SerializableString TYPE_MARKER = new SerializedString("marker");
    private static final SerializableString TYPE_DEPENDENCY = new SerializedString("dependency");
    private static final SerializableString TYPE_ANCHOR = new SerializedString("anchor");
    private static final SerializableString ARGS = new SerializedString("args");
    private static final SerializableString BLOCK = new SerializedString("block");
    private static final SerializableString BYTES = new SerializedString("bytes");
    private static final SerializableString CLOCK = new SerializedString("clock");
    private static final SerializableString CORRELATION = new SerializedString("correlation");
    private static final SerializableString DEVICE = new SerializedString("device");
    private static final SerializableString END = new SerializedString("end");
    private static final SerializableString EVENT = new SerializedString("event");
    private static final SerializableString FLAGS = new SerializedString("flags");
    private static final SerializableString FROM = new SerializedString("from");
    private static final SerializableString FROM_NS = new SerializedString("from_ns");
    private static final SerializableString GRID = new SerializedString("grid");
    private static final SerializableString ID = new SerializedString("id");
    private static final SerializableString KIND = new SerializedString("kind");
    private static final SerializableString NAME = new SerializedString("name");
    private static final SerializableString PRIORITY = new SerializedString("priority");
    private static final SerializableString QUEUED = new SerializedString("queued");
    private static final SerializableString RANK = new SerializedString("rank");
    private static final SerializableString RECORD = new SerializedString("record");
    private static final SerializableString RECORD_STREAM = new SerializedString("record_stream");
    private static final SerializableString RESULT = new SerializedString("result");
    private static final SerializableString ROLE = new SerializedString("role");
    private static final SerializableString START = new SerializedString("start");
    private static final SerializableString STEP = new SerializedString("step");
    private static final SerializableString STREAM = new SerializedString("stream");
    private static final SerializableString SUBMITTED = new SerializedString("submitted");
    private static final SerializableString THREAD = new SerializedString("thread");
    private static final SerializableString TO = new SerializedString("to");
    private static final SerializableString TO_NS = new SerializedString("to_ns");
    private static final SerializableString WAIT = new SerializedString("wait");
    private static final SerializableString WINDOW = new SerializedString("window");
    private static final SerializableString WAIT_STREAM = new SerializedString("wait_stream");

    private final OutputStream out;
    private final JsonGenerator json;
    private final Map<String, SerializableString> values = new HashMap<>();
    /** Between {@link #beginApi} and {@link #endApi}: the {@code "args"} object has been opened. */
    private boolean argsOpen;

    public EventJsonlWriter(OutputStream out) throws IOException {
        this.out = out;
        this.json = FACTORY.createGenerator(out, JsonEncoding.UTF8);
        json.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
        json.configure(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM, false);
    }

    public void write(DeviceActivity a) throws IOException {
        begin(TYPE_ACTIVITY);
        string(KIND, a.kind().name());
        string(NAME, a.name());
        number(RANK, a.rank());
        number(DEVICE, a.device());
        number(STREAM, a.stream());
        number(START, a.startNs());
        number(END, a.endNs());
        number(CORRELATION, a.correlationId());
        if (a.queuedNs() != DeviceActivity.UNKNOWN) {
            number(QUEUED, a.queuedNs());
        }
        if (a.submittedNs() != DeviceActivity.UNKNOWN) {
            number(SUBMITTED, a.submittedNs());
        }
        dim(GRID, a.grid());
        dim(BLOCK, a.block());
        if (a.bytes() != 0) {
            number(BYTES, a.bytes());
        }
        string(CLOCK, a.clock().tag());
        end();
    }

    public void write(ApiCall c) throws IOException {
        write(c, -1);
    }

    /** An API call made inside capture window {@code window} (-1: outside any, and no field is written). */
    public void write(ApiCall c, long window) throws IOException {
        beginApi(c.name(), c.thread(), c.stream(), c.startNs(), c.endNs(), c.correlationId(), c.result());
        for (Map.Entry<String, Object> e : c.args().entrySet()) {
            Object v = e.getValue();
            if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                arg(e.getKey(), ((Number) v).longValue());
            } else if (v instanceof Number n) {
                openArgs();
                json.writeNumberField(e.getKey(), n.doubleValue());
            } else if (v instanceof Boolean b) {
                openArgs();
                json.writeBooleanField(e.getKey(), b);
            } else {
                arg(e.getKey(), String.valueOf(v));
            }
        }
        endApi(window, c.clock());
    }

    /**
     * An API line written field by field, for a writer that keeps no {@link ApiCall} (the agent's drain thread, which
     * must not allocate per record): {@code beginApi}, then {@code arg} per argument in the order they should appear,
     * then {@link #endApi}. The bytes are those {@link #write(ApiCall, long)} writes for the same call and arguments.
     */
    public void beginApi(String name, long thread, long stream, long startNs, long endNs, long correlationId, int result)
            throws IOException {
        begin(TYPE_API);
        string(NAME, name);
        number(THREAD, thread);
        number(STREAM, stream);
        number(START, startNs);
        number(END, endNs);
        number(CORRELATION, correlationId);
        number(RESULT, result);
        argsOpen = false;
    }

    /** A numeric argument of the API line begun by {@link #beginApi}. */
    public void arg(String key, long value) throws IOException {
        openArgs();
        json.writeFieldName(encoded(key));
        json.writeNumber(value);
    }

    /** A string argument of the API line begun by {@link #beginApi}. */
    public void arg(String key, String value) throws IOException {
        openArgs();
        string(encoded(key), value);
    }

    /** Ends the API line begun by {@link #beginApi}; {@code window} as in {@link #write(ApiCall, long)}. */
    public void endApi(long window, ClockDomain clock) throws IOException {
        if (argsOpen) {
            json.writeEndObject();
            argsOpen = false;
        }
        if (window >= 0) {
            number(WINDOW, window);
        }
        string(CLOCK, clock.tag());
        end();
    }

    /** Arguments go into one {@code "args"} object, opened by the first of them (none: no object at all). */
    private void openArgs() throws IOException {
        if (!argsOpen) {
            json.writeFieldName(ARGS);
            json.writeStartObject();
            argsOpen = true;
        }
    }

    public void write(StreamInfo s) throws IOException {
        begin(TYPE_STREAM);
        number(ID, s.id());
        number(DEVICE, s.device());
        number(PRIORITY, s.priority());
        number(FLAGS, s.flags());
        if (s.role() != null) {
            string(ROLE, s.role());
        }
        end();
    }

    public void write(Marker m) throws IOException {
        begin(TYPE_MARKER);
        string(KIND, m.kind().name());
        string(NAME, m.name());
        number(RANK, m.rank());
        number(STEP, m.step());
        number(START, m.startNs());
        number(END, m.endNs());
        string(CLOCK, m.clock().tag());
        end();
    }

    public void write(Dependency d) throws IOException {
        begin(TYPE_DEPENDENCY);
        number(EVENT, d.event());
        number(RECORD_STREAM, d.recordStream());
        number(RECORD, d.recordNs());
        number(WAIT_STREAM, d.waitStream());
        number(WAIT, d.waitNs());
        string(CLOCK, d.clock().tag());
        end();
    }

    public void write(ClockAnchor a) throws IOException {
        begin(TYPE_ANCHOR);
        string(FROM, a.from().tag());
        number(FROM_NS, a.fromNs());
        string(TO, a.to().tag());
        number(TO_NS, a.toNs());
        end();
    }

    private void begin(SerializableString type) throws IOException {
        json.writeStartObject();
        json.writeFieldName(TYPE);
        json.writeString(type);
    }

    private void end() throws IOException {
        json.writeEndObject();
        json.writeRaw('\n');
    }

    private void number(SerializableString field, long value) throws IOException {
        json.writeFieldName(field);
        json.writeNumber(value);
    }

    private void string(SerializableString field, String value) throws IOException {
        json.writeFieldName(field);
        if (value == null) {
            json.writeNull();
            return;
        }
        json.writeString(encoded(value));
    }

    /** The value's UTF-8 encoding, made once per distinct value (names, kinds and tags are few). */
    private SerializableString encoded(String value) {
        SerializableString encoded = values.get(value);
        if (encoded == null) {
            if (values.size() >= MAX_CACHED_VALUES) {
                values.clear();
            }
            encoded = new SerializedString(value);
            values.put(value, encoded);
        }
        return encoded;
    }

    private void dim(SerializableString field, Dim3 d) throws IOException {
        if (d == null || d.equals(Dim3.NONE)) {
            return;
        }
        json.writeFieldName(field);
        json.writeStartArray();
        json.writeNumber(d.x());
        json.writeNumber(d.y());
        json.writeNumber(d.z());
        json.writeEndArray();
    }

    /** Everything written so far reaches the stream and is flushed there. */
    @Override
    public void flush() throws IOException {
        json.flush();
        out.flush();
    }

    @Override
    public void close() throws IOException {
        json.close();
        out.close();
    }
}
