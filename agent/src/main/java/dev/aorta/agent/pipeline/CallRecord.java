package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.jsonl.EventJsonlWriter;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One decoded API call, mutable and reused: the drain thread decodes every ring row into the same instance and
 * hands it on, so that the JSONL path allocates nothing per record. Arguments are kept as (name, number or string)
 * pairs in the order they are added; names and string values are constants or interned names, never built per
 * record. Sinks that keep objects take an immutable {@link ApiCall} ({@link #toApiCall()}, made once per record).
 * Valid only during the sink call it is handed to; whoever keeps it longer copies it ({@link #copyFrom}).
 */
public final class CallRecord {
    /** Room for the most arguments a kind has (a collective: 10) plus the correlation join's two. */
    static final int MAX_ARGS = 16;

    private String name;
    private CallKind kind;
    private long thread;
    private long stream;
    private long startNs;
    private long endNs;
    private long correlationId;
    private int result;
    private final String[] keys = new String[MAX_ARGS];
    private final long[] numbers = new long[MAX_ARGS];
    /** The string value of argument i, or null when it is the number {@code numbers[i]}. */
    private final String[] strings = new String[MAX_ARGS];
    private int args;
    private ApiCall materialized;

    /** Starts a new record (forgetting the previous one's arguments). */
    public CallRecord reset(String name, CallKind kind, long thread, long stream, long startNs, long endNs,
                            long correlationId, int result) {
        this.name = name;
        this.kind = kind;
        this.thread = thread;
        this.stream = stream;
        this.startNs = startNs;
        this.endNs = endNs;
        this.correlationId = correlationId;
        this.result = result;
        this.args = 0;
        this.materialized = null;
        return this;
    }

    public CallRecord arg(String key, long value) {
        return put(key, value, null);
    }

    public CallRecord arg(String key, String value) {
        return put(key, 0, value);
    }

    /** The numeric argument {@code key}, or {@code absent} when the record has none of that name. */
    public long number(String key, long absent) {
        for (int i = 0; i < args; i++) {
            if (keys[i].equals(key) && strings[i] == null) {
                return numbers[i];
            }
        }
        return absent;
    }

    /** The string argument {@code key}, or null when the record has none of that name. */
    public String string(String key) {
        for (int i = 0; i < args; i++) {
            if (keys[i].equals(key) && strings[i] != null) {
                return strings[i];
            }
        }
        return null;
    }

    public int result() {
        return result;
    }

    private CallRecord put(String key, long number, String string) {
        keys[args] = key;
        numbers[args] = number;
        strings[args] = string;
        args++;
        materialized = null;
        return this;
    }

    /** The stream the call is attributed to, once known later in decoding (a GEMM's handle's stream). */
    void stream(long stream) {
        this.stream = stream;
        materialized = null;
    }

    public String name() {
        return name;
    }

    public CallKind kind() {
        return kind;
    }

    public long thread() {
        return thread;
    }

    public long stream() {
        return stream;
    }

    public long startNs() {
        return startNs;
    }

    public long endNs() {
        return endNs;
    }

    public long correlationId() {
        return correlationId;
    }

    /** Makes this record a copy of {@code other} (arrays copied, nothing allocated). */
    void copyFrom(CallRecord other) {
        reset(other.name, other.kind, other.thread, other.stream, other.startNs, other.endNs, other.correlationId,
                other.result);
        System.arraycopy(other.keys, 0, keys, 0, other.args);
        System.arraycopy(other.numbers, 0, numbers, 0, other.args);
        System.arraycopy(other.strings, 0, strings, 0, other.args);
        args = other.args;
    }

    /** Writes this record as one {@code api} line, arguments in the order they were added. */
    void writeTo(EventJsonlWriter out, long window) throws IOException {
        out.beginApi(name, thread, stream, startNs, endNs, correlationId, result);
        for (int i = 0; i < args; i++) {
            if (strings[i] == null) {
                out.arg(keys[i], numbers[i]);
            } else {
                out.arg(keys[i], strings[i]);
            }
        }
        out.endApi(window, ClockDomain.HOST_MONOTONIC);
    }

    /** The record as the event model's immutable call (made once per record, for sinks that keep objects). */
    public ApiCall toApiCall() {
        if (materialized == null) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (int i = 0; i < args; i++) {
                map.put(keys[i], strings[i] == null ? (Object) numbers[i] : strings[i]);
            }
            materialized = new ApiCall(name, thread, stream, startNs, endNs, correlationId, result, map,
                    ClockDomain.HOST_MONOTONIC);
        }
        return materialized;
    }
}
