package dev.aorta.agent.pipeline;

import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.HostClock;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.StreamInfo;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Turns raw records into the event model, on the drain thread: API calls with their arguments by name,
 * the stream registry (created streams with flags and priority), event dependencies (record on A, wait
 * on B) and cuBLAS handle to stream bindings. Iteration markers go to the {@link IterationTracker}.
 */
public final class CallDecoder implements CallBuffer.RowConsumer {
    private static final String[] RUNTIME_COPY_KINDS = {"HtoH", "HtoD", "DtoH", "DtoD", "default"};
    private static final String[] NCCL_DTYPES = {"int8", "uint8", "int32", "uint32", "int64", "uint64",
            "float16", "float32", "float64", "bfloat16"};
    private static final int[] NCCL_DTYPE_BYTES = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    private static final String[] NCCL_OPS = {"sum", "prod", "max", "min", "avg"};

    /** Where decoded API calls go (through the correlation join). */
    public interface ApiSink {
        void api(ApiCall call, CallKind kind);
    }

    private final Fanout sink;
    private final ApiSink apis;
    private final LongConsumer streamCreated;
    private final IterationTracker iterations;
    private final Set<Category> categories;
    private final Map<Long, long[]> lastEventRecord = new HashMap<>();
    private final Map<Long, Long> handleStreams = new HashMap<>();
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
        Interception ic = CallTable.get((int) r[o + CallBuffer.ID]);
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
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT));
        switch (kind) {
            case LAUNCH -> {
                args.put("grid_x", r[a]);
                args.put("grid_y", r[a + 1]);
                args.put("grid_z", r[a + 2]);
                args.put("block_x", r[a + 3]);
                args.put("block_y", r[a + 4]);
                args.put("block_z", r[a + 5]);
                args.put("shared_mem", r[a + 6]);
                args.put("function", r[a + 7]);
            }
            case GRAPH_LAUNCH -> args.put("graph_exec", r[a]);
            case COPY -> {
                args.put("bytes", r[a] * ic.unitBytes());
                args.put("copy_kind", ic.copyKind() != null ? ic.copyKind() : runtimeCopyKind(r[a + 1]));
                args.put("dst", r[a + 2]);
                args.put("src", r[a + 3]);
            }
            case MEMSET -> {
                args.put("bytes", r[a] * ic.unitBytes());
                args.put("dst", r[a + 2]);
            }
            case STREAM_CREATE -> {
                int flags = (int) r[a];
                int priority = (int) r[a + 1];
                args.put("flags", flags);
                args.put("priority", priority);
                streamCreated(new StreamInfo(stream, 0, priority, flags, null));
                streamCreated.accept(stream);
            }
            case STREAM_DESTROY, SYNC -> {
                // the stream is the whole story
            }
            case SET_STREAM -> {
                args.put("handle", r[a]);
                handleStreams.put(r[a], stream);
            }
            case EVENT_RECORD -> {
                args.put("event", r[a]);
                lastEventRecord.put(r[a], new long[] {stream, start});
            }
            case EVENT_SYNC, EVENT_QUERY -> args.put("event", r[a]);
            case STREAM_WAIT -> {
                args.put("event", r[a]);
                args.put("flags", r[a + 1]);
                long[] rec = lastEventRecord.get(r[a]);
                if (rec != null) {
                    dependency(new Dependency(r[a], rec[0], rec[1], stream, start, ClockDomain.HOST_MONOTONIC));
                }
            }
            case COLLECTIVE -> {
                int dtype = (int) r[a + 1];
                int op = (int) r[a + 2];
                args.put("collective", ic.method());
                args.put("count", r[a]);
                args.put("dtype", dtype >= 0 && dtype < NCCL_DTYPES.length ? NCCL_DTYPES[dtype] : String.valueOf(dtype));
                if (op >= 0) {
                    args.put("op", op < NCCL_OPS.length ? NCCL_OPS[op] : String.valueOf(op));
                }
                if (dtype >= 0 && dtype < NCCL_DTYPE_BYTES.length) {
                    args.put("bytes", r[a] * NCCL_DTYPE_BYTES[dtype]);
                }
                args.put("communicator", r[a + 3]);
                args.put("send", r[a + 4]);
                args.put("recv", r[a + 5]);
                if (r[a + 6] != stream) {
                    args.put("application_stream", r[a + 6]);
                }
            }
            case ALLOC -> {
                args.put("bytes", r[a]);
                args.put("address", r[a + 1]);
            }
            case FREE -> args.put("address", r[a]);
            case GEMM -> {
                long handle = r[a];
                if (handle != 0) {
                    args.put("handle", handle);
                    if (stream == 0) {
                        stream = handleStreams.getOrDefault(handle, 0L);
                    }
                }
                if (r[a + 1] != 0 || r[a + 2] != 0 || r[a + 3] != 0) {
                    args.put("m", r[a + 1]);
                    args.put("n", r[a + 2]);
                    args.put("k", r[a + 3]);
                }
            }
            default -> throw new IllegalStateException("no decoding for " + kind);
        }
        decoded++;
        ApiCall call = new ApiCall(ic.method(), buffer.threadId(), stream, start, end,
                buffer.correlationId(sequence), (int) r[o + CallBuffer.RESULT], args, ClockDomain.HOST_MONOTONIC);
        apis.api(call, kind);
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

    private static String runtimeCopyKind(long kind) {
        return kind >= 0 && kind < RUNTIME_COPY_KINDS.length ? RUNTIME_COPY_KINDS[(int) kind] : "unknown";
    }
}
