package dev.aorta.agent.pipeline;

import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.HostClock;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.StreamInfo;

import java.util.Locale;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Turns raw records into the event model, on the drain thread: API calls with their arguments by name (decoded
 * into one reused {@link CallRecord}, with primitive maps for the state kept between rows, so that a row costs
 * no allocation),
 * the stream registry (created streams with flags and priority), event dependencies (record on A, wait
 * on B) and cuBLAS handle to stream bindings. Iteration markers go to the {@link IterationTracker}.
 */
public final class CallDecoder implements CallBuffer.RowConsumer {
    private static final String[] RUNTIME_COPY_KINDS = {"HtoH", "HtoD", "DtoH", "DtoD", "default"};
    private static final String[] NCCL_DTYPES = {"int8", "uint8", "int32", "uint32", "int64", "uint64",
            "float16", "float32", "float64", "bfloat16"};
    private static final int[] NCCL_DTYPE_BYTES = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    private static final String[] NCCL_OPS = {"sum", "prod", "max", "min", "avg"};

    /** Where decoded API calls go (through the correlation join); the record is reused after the call returns. */
    public interface ApiSink {
        void api(CallRecord call);
    }

    private final Fanout sink;
    private final ApiSink apis;
    private final LongConsumer streamCreated;
    private final IterationTracker iterations;
    private final Set<Category> categories;
    /** The lowercase kind names the {@code kind} argument carries, made once. */
    private static final String[] KIND_NAMES = kindNames();

    /** The stream and time of each event's last record, for the dependency its stream-wait makes. */
    private final LongLongMap eventStreams = new LongLongMap();
    private final LongLongMap eventTimes = new LongLongMap();
    /** cuBLAS handle -> the stream set on it. */
    private final LongLongMap handleStreams = new LongLongMap();
    /** The one record every row is decoded into. */
    private final CallRecord call = new CallRecord();
    private long decoded;

    /**
     * @param apis          receives the API calls
     * @param streamCreated told each stream the application creates (CUPTI registration)
     */
    public CallDecoder(Fanout sink, ApiSink apis, LongConsumer streamCreated, IterationTracker iterations,
                       Set<Category> categories) {
        this.sink = sink;
        this.apis = apis;
        this.streamCreated = streamCreated;
        this.iterations = iterations;
        this.categories = categories;
    }

    @Override
    public void accept(CallBuffer buffer, long sequence, long[] r, int o) {
        Interception ic = CallTable.get(CallBuffer.id(r, o));
        if (ic == null) {
            return;
        }
        CallKind kind = ic.kind();
        long start = HostClock.toNanos(r[o + CallBuffer.START]);
        long end = HostClock.toNanos(r[o + CallBuffer.END]);
        if (kind.isIterationMarker()) {
            iterations.marker(kind, start, end, r[o + CallBuffer.ARG0]);
            return;
        }
        if (!categories.contains(kind.category())) {
            return;
        }
        long stream = r[o + CallBuffer.STREAM];
        int a = o + CallBuffer.ARG0;
        CallRecord c = call.reset(ic.method(), kind, buffer.threadId(), stream, start, end,
                buffer.correlationId(sequence), CallBuffer.result(r, o));
        c.arg("kind", KIND_NAMES[kind.ordinal()]);
        switch (kind) {
            case LAUNCH -> c.arg("grid_x", r[a]).arg("grid_y", r[a + 1]).arg("grid_z", r[a + 2])
                    .arg("block_x", r[a + 3]).arg("block_y", r[a + 4]).arg("block_z", r[a + 5])
                    .arg("shared_mem", r[a + 6]).arg("function", r[a + 7]);
            case GRAPH_LAUNCH -> c.arg("graph_exec", r[a]);
            case COPY -> c.arg("bytes", r[a] * ic.unitBytes())
                    .arg("copy_kind", ic.copyKind() != null ? ic.copyKind() : runtimeCopyKind(r[a + 1]))
                    .arg("dst", r[a + 2]).arg("src", r[a + 3]);
            case MEMSET -> c.arg("bytes", r[a] * ic.unitBytes()).arg("dst", r[a + 2]);
            case STREAM_CREATE -> {
                int flags = (int) r[a];
                int priority = (int) r[a + 1];
                c.arg("flags", flags).arg("priority", priority);
                streamCreated(new StreamInfo(stream, 0, priority, flags, null));
                streamCreated.accept(stream);
            }
            case STREAM_DESTROY, SYNC -> {
                // the stream is the whole story
            }
            case SET_STREAM -> {
                c.arg("handle", r[a]);
                handleStreams.put(r[a], stream);
            }
            case EVENT_RECORD -> {
                c.arg("event", r[a]);
                eventStreams.put(r[a], stream);
                eventTimes.put(r[a], start);
            }
            case EVENT_SYNC, EVENT_QUERY -> c.arg("event", r[a]);
            case STREAM_WAIT -> {
                c.arg("event", r[a]).arg("flags", r[a + 1]);
                if (eventStreams.containsKey(r[a])) {
                    dependency(new Dependency(r[a], eventStreams.get(r[a], 0), eventTimes.get(r[a], 0), stream, start,
                            ClockDomain.HOST_MONOTONIC));
                }
            }
            case COLLECTIVE -> {
                int dtype = (int) r[a + 1];
                int op = (int) r[a + 2];
                c.arg("collective", ic.method()).arg("count", r[a])
                        .arg("dtype", dtype >= 0 && dtype < NCCL_DTYPES.length ? NCCL_DTYPES[dtype] : String.valueOf(dtype));
                if (op >= 0) {
                    c.arg("op", op < NCCL_OPS.length ? NCCL_OPS[op] : String.valueOf(op));
                }
                if (dtype >= 0 && dtype < NCCL_DTYPE_BYTES.length) {
                    c.arg("bytes", r[a] * NCCL_DTYPE_BYTES[dtype]);
                }
                c.arg("communicator", r[a + 3]).arg("send", r[a + 4]).arg("recv", r[a + 5]);
                if (r[a + 6] != stream) {
                    c.arg("application_stream", r[a + 6]);
                }
            }
            case ALLOC -> c.arg("bytes", r[a]).arg("address", r[a + 1]);
            case FREE -> c.arg("address", r[a]);
            case CONTEXT_DESTROY -> c.arg("context", r[a]);
            case GEMM -> {
                long handle = r[a];
                if (handle != 0) {
                    c.arg("handle", handle);
                    if (stream == 0) {
                        c.stream(handleStreams.get(handle, 0L));
                    }
                }
                if (r[a + 1] != 0 || r[a + 2] != 0 || r[a + 3] != 0) {
                    c.arg("m", r[a + 1]).arg("n", r[a + 2]).arg("k", r[a + 3]);
                }
            }
            default -> throw new IllegalStateException("no decoding for " + kind);
        }
        decoded++;
        apis.api(c);
    }

    /** A stream someone else (the binder) created: registered like the application's. */
    public void streamCreated(StreamInfo info) {
        sink.stream(info);
    }

    public void dependency(Dependency d) {
        sink.dependency(d);
    }

    public long decodedCalls() {
        return decoded;
    }

    private static String[] kindNames() {
        CallKind[] kinds = CallKind.values();
        String[] names = new String[kinds.length];
        for (CallKind k : kinds) {
            names[k.ordinal()] = k.name().toLowerCase(Locale.ROOT);
        }
        return names;
    }

    private static String runtimeCopyKind(long kind) {
        return kind >= 0 && kind < RUNTIME_COPY_KINDS.length ? RUNTIME_COPY_KINDS[(int) kind] : "unknown";
    }
}
