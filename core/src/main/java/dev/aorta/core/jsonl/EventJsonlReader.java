package dev.aorta.core.jsonl;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@link EventJsonl} lines. A line that is not a complete JSON object (the tail of a killed run)
 * is reported to {@link Sink#malformed} with its line number and skipped; reading goes on.
 */
public final class EventJsonlReader {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    /** Receives each record read. Unknown record types are ignored (newer writers may add some). */
    public interface Sink {
        default void activity(DeviceActivity a) {
        }

        default void api(ApiCall c) {
        }

        default void stream(StreamInfo s) {
        }

        default void marker(Marker m) {
        }

        default void dependency(Dependency d) {
        }

        default void anchor(ClockAnchor a) {
        }

        /** A line that could not be read: {@code lineNumber} counts from 1. */
        default void malformed(long lineNumber, String reason) {
        }
    }

    /** Reads every line of {@code in}; returns the number of records read. */
    public long read(BufferedReader in, Sink sink) throws IOException {
        long lineNumber = 0;
        long records = 0;
        String line;
        while ((line = in.readLine()) != null) {
            lineNumber++;
            if (lineNumber == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);  // a byte-order mark, as editors on Windows write one
            }
            if (line.isBlank()) {
                continue;
            }
            try {
                if (readLine(line, sink)) {
                    records++;
                }
            } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
                sink.malformed(lineNumber, e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return records;
    }

    private boolean readLine(String line, Sink sink) throws IOException {
        Map<String, Object> f = new HashMap<>();
        try (JsonParser p = FACTORY.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            readObject(p, f);
        }
        Object type = f.get(EventJsonl.TYPE);
        if (type == null) {
            throw new IllegalArgumentException("no \"type\" field");
        }
        switch (type.toString()) {
            case "activity" -> sink.activity(new DeviceActivity(ActivityKind.valueOf(str(f, "kind")), str(f, "name"),
                    (int) num(f, "rank", 0), (int) num(f, "device", 0), num(f, "stream", 0), req(f, "start"), req(f, "end"),
                    num(f, "correlation", 0), num(f, "queued", DeviceActivity.UNKNOWN),
                    num(f, "submitted", DeviceActivity.UNKNOWN), dim(f, "grid"), dim(f, "block"), num(f, "bytes", 0),
                    clock(f, "clock")));
            case "api" -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> args = (Map<String, Object>) f.getOrDefault("args", Map.of());
                sink.api(new ApiCall(str(f, "name"), num(f, "thread", 0), num(f, "stream", 0), req(f, "start"),
                        req(f, "end"), num(f, "correlation", 0), (int) num(f, "result", 0), args, clock(f, "clock")));
            }
            case "stream" -> sink.stream(new StreamInfo(req(f, "id"), (int) num(f, "device", 0),
                    (int) num(f, "priority", 0), (int) num(f, "flags", 0), (String) f.get("role")));
            case "marker" -> sink.marker(new Marker(Marker.Kind.valueOf(str(f, "kind")), str(f, "name"),
                    (int) num(f, "rank", 0), num(f, "step", -1), req(f, "start"), req(f, "end"), clock(f, "clock")));
            case "dependency" -> sink.dependency(new Dependency(num(f, "event", 0), num(f, "record_stream", 0),
                    req(f, "record"), num(f, "wait_stream", 0), req(f, "wait"), clock(f, "clock")));
            case "anchor" -> sink.anchor(new ClockAnchor(clock(f, "from"), req(f, "from_ns"), clock(f, "to"),
                    req(f, "to_ns")));
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Reads the fields of one object (nested objects become maps, arrays of numbers become long[]). */
    private static void readObject(JsonParser p, Map<String, Object> into) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            into.put(name, value(p, v));
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IllegalArgumentException("incomplete JSON object");
        }
    }

    private static Object value(JsonParser p, JsonToken v) throws IOException {
        if (v == null) {
            throw new IllegalArgumentException("incomplete JSON object");
        }
        return switch (v) {
            case VALUE_NUMBER_INT -> p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_STRING -> p.getText();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                readObject(p, m);
                yield m;
            }
            case START_ARRAY -> {
                long[] a = new long[3];
                int n = 0;
                JsonToken e;
                while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (e == null) {
                        throw new IllegalArgumentException("incomplete JSON array");
                    }
                    if (n == a.length) {
                        a = java.util.Arrays.copyOf(a, n * 2);
                    }
                    a[n++] = e.isNumeric() ? p.getLongValue() : 0;
                }
                yield java.util.Arrays.copyOf(a, n);
            }
            default -> throw new IllegalArgumentException("unexpected " + v);
        };
    }

    private static String str(Map<String, Object> f, String key) {
        Object v = f.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing \"" + key + "\"");
        }
        return v.toString();
    }

    private static long req(Map<String, Object> f, String key) {
        Object v = f.get(key);
        if (!(v instanceof Number n)) {
            throw new IllegalArgumentException("missing numeric \"" + key + "\"");
        }
        return n.longValue();
    }

    private static long num(Map<String, Object> f, String key, long dflt) {
        return f.get(key) instanceof Number n ? n.longValue() : dflt;
    }

    private static Dim3 dim(Map<String, Object> f, String key) {
        return f.get(key) instanceof long[] a && a.length == 3 ? new Dim3((int) a[0], (int) a[1], (int) a[2]) : Dim3.NONE;
    }

    private static ClockDomain clock(Map<String, Object> f, String key) {
        return ClockDomain.fromTag(str(f, key));
    }
}
