package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * rocprofv3 {@code *_results.json} ({@code {"rocprofiler-sdk-tool":[{...}]}}), streamed with Jackson.
 *
 * <p>Reads {@code agents} (agent handle → GPU index), {@code kernel_symbols} (kernel id → name),
 * {@code strings.buffer_records} (operation names of API records), {@code strings.marker_api} (roctx messages by
 * correlation id, when present) and from {@code buffer_records}:
 * {@code kernel_dispatch} → KERNEL, {@code memory_copy} → MEMCPY, {@code hip_api} → API calls,
 * {@code marker_api} → RANGE markers. Everything else (code objects, counters, host functions...) is skipped
 * without being built. Records are emitted once the document (or what of it could be read) is done, because
 * nothing in the format promises that symbols come before the dispatches that use them.
 * Times are nanoseconds of CLOCK_BOOTTIME; {@code grid_size} counts work-items, converted to blocks.
 */
public final class RocprofJsonReader implements TraceReader {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();
    private static final ClockDomain CLOCK = ClockDomain.BOOTTIME;

    @Override
    public String format() {
        return "rocprofv3-json";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return source.headText().stripLeading().startsWith("{") && source.headText().contains("\"rocprofiler-sdk-tool\"");
    }

    /** A dispatch or copy waiting for the names it refers to. */
    private record Pending(ActivityKind kind, long nameKey, long agent, long stream, long start, long end,
                           long correlation, Dim3 grid, Dim3 block, long bytes) {
    }

    private static final class State {
        final Map<Long, Integer> gpuIndexByAgent = new HashMap<>();
        final Map<Long, String> kernelNames = new HashMap<>();
        final Map<Long, List<String>> operationNames = new HashMap<>();
        final Map<Long, String> markerMessages = new HashMap<>();
        final List<Pending> pending = new ArrayList<>();
        final List<ApiCall> apiCalls = new ArrayList<>();
        final List<long[]> apiOps = new ArrayList<>();
        final List<Marker> markers = new ArrayList<>();
        final String file;
        final SkippedRecords skipped;

        State(String file) {
            this.file = file;
            this.skipped = new SkippedRecords(file);
        }
    }

    /** A missing or unusable timestamp; the records holding one are skipped and counted. */
    private static final long NO_TIME = Long.MIN_VALUE;

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        State s = new State(source.path().toString());
        try (Utf8Repair in = new Utf8Repair(source.open()); JsonParser p = JSON.createParser(in)) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new TraceFormatException(source.path() + ": expected a JSON object");
                }
                String field;
                while ((field = p.nextFieldName()) != null) {
                    JsonToken v = p.nextToken();
                    if ("rocprofiler-sdk-tool".equals(field) && v == JsonToken.START_ARRAY) {
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            readTool(p, s);
                        }
                    } else if (v.isStructStart()) {
                        p.skipChildren();
                    }
                }
                // gzip checks its checksum only at the end of the data, after the JSON has ended
                in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (TraceFormatException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                sink.warning(PartialReadWarning.of(source, e,
                        PartialReadWarning.atByte(source, p.currentLocation().getByteOffset()),
                        "the " + s.pending.size() + " device records read before it"));
            }
            if (in.warning(source) != null) {
                sink.warning(in.warning(source));
            }
        }
        emit(s, sink);
    }

    private static void readTool(JsonParser p, State s) throws IOException {
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "agents" -> forEachObject(p, v, s.skipped, "agents", () -> readAgent(p, s));
                case "kernel_symbols" -> forEachObject(p, v, s.skipped, "kernel symbols", () -> readSymbol(p, s));
                case "strings" -> readStrings(p, v, s);
                case "buffer_records" -> readBufferRecords(p, v, s);
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
    }

    private interface ObjectReader {
        void read() throws IOException;
    }

    /** Whether value {@code v} is the expected object or array; any other value is skipped whole. */
    private static boolean startsWith(JsonParser p, JsonToken v, JsonToken expected) throws IOException {
        if (v == expected) {
            return true;
        }
        if (v.isStructStart()) {
            p.skipChildren();
        }
        return false;
    }

    /**
     * Reads each object of an array. An object with a value its reader cannot take (a number beyond 64 bits, text
     * where a number belongs) is skipped to its end and counted as {@code what}, and the next one is read: one bad
     * record costs that record, not the rest of the file. A syntax error fails the skip too and ends the file.
     */
    private static void forEachObject(JsonParser p, JsonToken v, SkippedRecords skipped, String what,
                                      ObjectReader reader) throws IOException {
        if (!startsWith(p, v, JsonToken.START_ARRAY)) {
            return;
        }
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            JsonStreamContext array = p.getParsingContext().getParent();
            long at = p.currentTokenLocation().getByteOffset();
            try {
                reader.read();
            } catch (InputCoercionException | NumberFormatException bad) {
                skipped.skip(what + " with a value out of range", "byte " + at);
                skipToEnd(p, array);
            } catch (JsonParseException bad) {
                if (!bad.getOriginalMessage().contains("not numeric")) {
                    throw bad;
                }
                skipped.skip(what + " with text where a number belongs", "byte " + at);
                skipToEnd(p, array);
            }
        }
        if (t != JsonToken.END_ARRAY) {
            throw new IOException("expected an array of objects");
        }
    }

    private static void readAgent(JsonParser p, State s) throws IOException {
        long handle = -1;
        int type = 0;
        int gpuIndex = -1;
        int nodeId = -1;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "id" -> handle = handle(p, v);
                case "type" -> type = p.getIntValue();
                case "gpu_index" -> gpuIndex = p.getIntValue();
                case "node_id" -> nodeId = p.getIntValue();
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        // type 2 is a GPU agent; gpu_index is the HIP device number, node_id the fallback
        s.gpuIndexByAgent.put(handle, type == 2 && gpuIndex >= 0 ? gpuIndex : nodeId);
    }

    private static void readSymbol(JsonParser p, State s) throws IOException {
        long id = -1;
        String formatted = null;
        String raw = null;
        String field;
        while ((field = p.nextFieldName()) != null) {
            p.nextToken();
            switch (field) {
                case "kernel_id" -> id = p.getLongValue();
                case "formatted_kernel_name" -> formatted = p.getText();
                case "kernel_name" -> raw = p.getText();
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        s.kernelNames.put(id, formatted != null && !formatted.isEmpty() ? formatted : raw);
    }

    /** {@code strings.buffer_records}: [{kind, operations[]}], indexed by the records' kind and operation numbers. */
    private static void readStrings(JsonParser p, JsonToken v, State s) throws IOException {
        if (!startsWith(p, v, JsonToken.START_OBJECT)) {
            return;
        }
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            if ("buffer_records".equals(field) && t == JsonToken.START_ARRAY) {
                long kindIndex = 0;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    List<String> ops = new ArrayList<>();
                    String f;
                    while ((f = p.nextFieldName()) != null) {
                        JsonToken ft = p.nextToken();
                        if ("operations".equals(f) && ft == JsonToken.START_ARRAY) {
                            while (p.nextToken() == JsonToken.VALUE_STRING) {
                                ops.add(p.getText());
                            }
                        } else if (ft.isStructStart()) {
                            p.skipChildren();
                        }
                    }
                    s.operationNames.put(kindIndex++, ops);
                }
            } else if ("marker_api".equals(field) && t == JsonToken.START_ARRAY) {
                // roctx messages as [{"key": correlation id, "value": message}]
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    long key = -1;
                    String value = null;
                    String f;
                    while ((f = p.nextFieldName()) != null) {
                        JsonToken ft = p.nextToken();
                        if ("key".equals(f) && ft.isNumeric()) {
                            key = p.getLongValue();
                        } else if ("value".equals(f) && ft == JsonToken.VALUE_STRING) {
                            value = p.getText();
                        } else if (ft.isStructStart()) {
                            p.skipChildren();
                        }
                    }
                    if (value != null) {
                        s.markerMessages.put(key, value);
                    }
                }
            } else if (t.isStructStart()) {
                p.skipChildren();
            }
        }
    }

    private static void readBufferRecords(JsonParser p, JsonToken v, State s) throws IOException {
        if (!startsWith(p, v, JsonToken.START_OBJECT)) {
            return;
        }
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            switch (field) {
                case "kernel_dispatch" -> forEachObject(p, t, s.skipped, "KERNEL records",
                        () -> s.pending.add(readRecord(p, ActivityKind.KERNEL)));
                case "memory_copy" -> forEachObject(p, t, s.skipped, "MEMCPY records",
                        () -> s.pending.add(readRecord(p, ActivityKind.MEMCPY)));
                case "hip_api" -> forEachObject(p, t, s.skipped, "HIP API records", () -> readApi(p, s));
                case "marker_api" -> forEachObject(p, t, s.skipped, "marker records", () -> readMarker(p, s));
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
    }

    private static Pending readRecord(JsonParser p, ActivityKind kind) throws IOException {
        long start = NO_TIME;
        long end = NO_TIME;
        long correlation = 0;
        long stream = 0;
        long agent = -1;
        long queue = 0;
        long kernelId = -1;
        long bytes = 0;
        long operation = 0;
        long[] wg = {0, 1, 1};
        long[] grid = {0, 1, 1};
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "start_timestamp" -> start = timestamp(p, v);
                case "end_timestamp" -> end = timestamp(p, v);
                case "correlation_id" -> correlation = internalCorrelation(p, v);
                case "stream_id" -> stream = handle(p, v);
                case "bytes" -> bytes = p.getLongValue();
                case "operation" -> operation = p.getLongValue();
                case "dst_agent_id", "agent_id" -> agent = handle(p, v);
                case "dispatch_info" -> {
                    String f;
                    while ((f = p.nextFieldName()) != null) {
                        JsonToken fv = p.nextToken();
                        switch (f) {
                            case "agent_id" -> agent = handle(p, fv);
                            case "queue_id" -> queue = handle(p, fv);
                            case "kernel_id" -> kernelId = p.getLongValue();
                            case "workgroup_size" -> xyz(p, fv, wg);
                            case "grid_size" -> xyz(p, fv, grid);
                            default -> p.skipChildren();  // does nothing unless on an object or array start
                        }
                    }
                }
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        Dim3 block = kind == ActivityKind.KERNEL ? new Dim3((int) wg[0], (int) wg[1], (int) wg[2]) : Dim3.NONE;
        Dim3 blocks = kind == ActivityKind.KERNEL ? new Dim3(blocks(grid[0], wg[0]), blocks(grid[1], wg[1]),
                blocks(grid[2], wg[2])) : Dim3.NONE;
        // a null stream (handle 0) says nothing; the HSA queue then tells streams apart
        long lane = stream != 0 ? stream : queue;
        return new Pending(kind, kind == ActivityKind.KERNEL ? kernelId : operation, agent, lane, start, end,
                correlation, blocks, block, bytes);
    }

    private static void readApi(JsonParser p, State s) throws IOException {
        long start = NO_TIME;
        long end = NO_TIME;
        long correlation = 0;
        long thread = 0;
        long kind = -1;
        long operation = -1;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "start_timestamp" -> start = timestamp(p, v);
                case "end_timestamp" -> end = timestamp(p, v);
                case "correlation_id" -> correlation = internalCorrelation(p, v);
                case "thread_id" -> thread = p.getLongValue();
                case "kind" -> kind = p.getLongValue();
                case "operation" -> operation = p.getLongValue();
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        if (start == NO_TIME || end == NO_TIME) {
            s.skipped.skip("HIP API records without a whole-number start_timestamp and end_timestamp", null);
            return;
        }
        s.apiCalls.add(new ApiCall("", thread, 0, start, end, correlation, 0, Map.of(), CLOCK));
        s.apiOps.add(new long[] {kind, operation});
    }

    private static void readMarker(JsonParser p, State s) throws IOException {
        long start = NO_TIME;
        long end = NO_TIME;
        long correlation = 0;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "start_timestamp" -> start = timestamp(p, v);
                case "end_timestamp" -> end = timestamp(p, v);
                case "correlation_id" -> correlation = internalCorrelation(p, v);
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        if (start == NO_TIME || end == NO_TIME) {
            s.skipped.skip("marker records without a whole-number start_timestamp and end_timestamp", null);
            return;
        }
        s.markers.add(new Marker(Marker.Kind.RANGE, Long.toString(correlation), TraceSink.UNKNOWN_RANK, -1, start,
                Math.max(start, end), CLOCK));
    }

    private static void emit(State s, TraceSink sink) {
        long unnamed = 0;
        long unnamedNs = 0;
        for (Pending d : s.pending) {
            if (d.start() == NO_TIME || d.end() == NO_TIME) {
                s.skipped.skip(d.kind() + " records without a whole-number start_timestamp and end_timestamp", null);
                continue;
            }
            if (d.end() < d.start()) {
                s.skipped.skip(d.kind() + " records that end before they start", "correlation " + d.correlation());
                continue;
            }
            String symbol = d.kind() == ActivityKind.KERNEL ? s.kernelNames.get(d.nameKey()) : "MEMORY_COPY";
            // without its symbol a kernel may be a GEMM or an RCCL all-reduce: its class is unknown, not compute
            ActivityKind kind = symbol == null ? ActivityKind.OTHER : d.kind();
            if (symbol == null) {
                unnamed++;
                unnamedNs += d.end() - d.start();
            }
            int device = s.gpuIndexByAgent.getOrDefault(d.agent(), (int) d.agent());
            sink.activity(new DeviceActivity(kind, symbol == null ? "kernel#" + d.nameKey() : symbol,
                    TraceSink.UNKNOWN_RANK, device, d.stream(), d.start(), d.end(), d.correlation(),
                    DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, d.grid(), d.block(), d.bytes(), CLOCK));
        }
        if (unnamed > 0) {
            sink.warning(String.format(java.util.Locale.ROOT, "%s: %d kernel dispatches (%.3f ms summed) name a"
                    + " kernel_id that \"kernel_symbols\" does not list, so whether they are compute or communication"
                    + " is unknown: they count as class unknown, in no overlap metric", s.file, unnamed,
                    unnamedNs / 1e6));
        }
        if (s.skipped.warning() != null) {
            sink.warning(s.skipped.warning());
        }
        for (int i = 0; i < s.apiCalls.size(); i++) {
            ApiCall c = s.apiCalls.get(i);
            long[] op = s.apiOps.get(i);
            List<String> names = s.operationNames.getOrDefault(op[0], List.of());
            String name = op[1] >= 0 && op[1] < names.size() ? names.get((int) op[1]) : "api#" + op[1];
            sink.api(new ApiCall(name, c.thread(), 0, c.startNs(), c.endNs(), c.correlationId(), 0, Map.of(), CLOCK));
        }
        for (Marker m : s.markers) {
            // the name holds the correlation id until the messages (which may come later) are known
            long correlation = Long.parseLong(m.name());
            sink.marker(new Marker(m.kind(), s.markerMessages.getOrDefault(correlation, "roctx#" + correlation), m.rank(),
                    m.step(), m.startNs(), m.endNs(), m.clock()));
        }
    }

    /** A timestamp in ns, or {@link #NO_TIME} when it is not a whole number (a string, a decimal, an object). */
    private static long timestamp(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            return p.getLongValue();
        }
        if (v.isStructStart()) {
            p.skipChildren();
        }
        return NO_TIME;
    }

    /** A handle: {@code {"handle": n}} or a bare id; -1 when absent. */
    private static long handle(JsonParser p, JsonToken v) throws IOException {
        return numberIn(p, v, "handle", -1);
    }

    /** A correlation id: {@code {"internal": n, ...}} or a bare id; 0 when absent. */
    private static long internalCorrelation(JsonParser p, JsonToken v) throws IOException {
        return numberIn(p, v, "internal", 0);
    }

    /** The numeric {@code field} of an object value (other fields skipped), or the value itself as an id. */
    private static long numberIn(JsonParser p, JsonToken v, String field, long absent) throws IOException {
        if (v != JsonToken.START_OBJECT) {
            return JsonNumbers.idValue(p, absent);
        }
        long n = absent;
        String f;
        while ((f = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            if (field.equals(f) && t.isNumeric()) {
                n = p.getLongValue();
            } else if (t.isStructStart()) {
                p.skipChildren();
            }
        }
        return n;
    }

    private static void xyz(JsonParser p, JsonToken v, long[] into) throws IOException {
        if (!startsWith(p, v, JsonToken.START_OBJECT)) {
            return;
        }
        String f;
        while ((f = p.nextFieldName()) != null) {
            p.nextToken();
            switch (f) {
                case "x" -> into[0] = p.getLongValue();
                case "y" -> into[1] = p.getLongValue();
                case "z" -> into[2] = p.getLongValue();
                default -> p.skipChildren();
            }
        }
    }

    /** Reads on to the end of the object being read, whose enclosing array is {@code array}. */
    private static void skipToEnd(JsonParser p, JsonStreamContext array) throws IOException {
        while (!(p.currentToken() == JsonToken.END_OBJECT && p.getParsingContext() == array)) {
            if (p.nextToken() == null) {
                throw new java.io.EOFException("the file ends inside a record");
            }
        }
    }

    private static int blocks(long workItems, long blockSize) {
        return (int) (blockSize <= 0 ? workItems : (workItems + blockSize - 1) / blockSize);
    }
}
