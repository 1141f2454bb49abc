package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.aorta.analyzer.columns.ActivityColumns;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.metric.StableOrder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

/**
 * PyTorch profiler (Kineto) JSON, plain or gzip, CUDA and ROCm flavours, streamed with Jackson.
 *
 * <p>Mapping: {@code kernel} → KERNEL, {@code gpu_memcpy} → MEMCPY, {@code gpu_memset} → MEMSET (device records,
 * stream from {@code args.stream} given as a number or a (hex) string); {@code cuda_runtime}/{@code cuda_driver}
 * → API calls (their {@code args.correlation} links them to the device record they launched); {@code cuda_sync}
 * "Stream Wait Event" records → dependencies (recorded when the {@code cudaEventRecord} call they name started,
 * waited for when the {@code cudaStreamWaitEvent} call started); host-side
 * {@code ProfilerStep#N} ranges → ITERATION markers (step N); other {@code user_annotation} and
 * {@code gpu_user_annotation} ranges → RANGE markers. {@code ts}/{@code dur} are microseconds, integer or
 * decimal, converted exactly to nanoseconds in the {@code kineto-epoch-us} clock; {@code baseTimeNanoseconds}
 * (when present) gives the anchor onto the epoch clock. {@code distributedInfo.rank} is the rank.
 *
 * <p>What PyTorch records about the op that launched a kernel is attached to the launch call's arguments (the call
 * and the op share {@code args."External id"}; the kernel is linked to its call by correlation id), under the names
 * of {@link OpArguments}: the NCCL metadata of {@code record_param_comms} ({@code Collective name},
 * {@code In msg nelems}, {@code Out msg nelems}, {@code Group size}, {@code dtype}, {@code Process Group Name}) and
 * the GEMM shape of {@code aten::mm}, {@code addmm}, {@code bmm}, {@code baddbmm}, {@code matmul} and {@code linear}
 * from {@code Input Dims} and {@code Input type} (recorded with {@code record_shapes=True}). Runtime calls are
 * therefore emitted after the whole file is read, since an op may come after the calls it made.
 */
public final class KinetoReader implements TraceReader {
    private static final Pattern PROFILER_STEP = Pattern.compile("ProfilerStep#(\\d+)");
    private static final ClockDomain CLOCK = ClockDomain.KINETO_EPOCH_US;

    /**
     * Reads a plain Kineto file in pieces on two threads (see {@link Pieces}); false, with nothing sent to the sink,
     * when it cannot.
     */
    static boolean readInPieces(TraceSource source, TraceSink sink) throws IOException {
        return Pieces.read(source, sink, Pieces.count(Files.size(source.path())));
    }

    /** The same in {@code pieces} pieces (tests use many). */
    static boolean readInPieces(TraceSource source, TraceSink sink, int pieces) throws IOException {
        return Pieces.read(source, sink, pieces);
    }

    /**
     * Plain files of at least this many bytes are read in pieces on two threads (see {@link Pieces}). With a second
     * core free, a 52 MB trace parsed in 0.47 s instead of 0.63 s (best of 6 on two cores; it costs about a tenth more
     * CPU time); a 10 MB one took as long either way, the second parser's start-up eating what it saves. At 17 MB
     * two halves still won, whole process on 2 CPUs: one pass took 34 ms longer (paired median of 20 runs each).
     */
    static final long SPLIT_FROM_BYTES = 8L << 20;
    private final long splitFromBytes;

    public KinetoReader() {
        this(SPLIT_FROM_BYTES);
    }

    /** A reader that splits plain files from {@code splitFromBytes} on (tests split small ones). */
    KinetoReader(long splitFromBytes) {
        this.splitFromBytes = splitFromBytes;
    }

    @Override
    public String format() {
        return "kineto";
    }

    @Override
    public boolean accepts(TraceSource source) {
        String head = source.headText();
        return head.stripLeading().startsWith("{") && head.contains("\"traceEvents\"")
                && !head.contains("\"rocprofiler-sdk-tool\"");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        if (Pieces.worthSplitting(source, splitFromBytes) && readInPieces(source, sink)) {
            return;
        }
        boolean[] sawBase = {false};
        Links links = new Links();
        EventCount events = new EventCount();
        SkippedRecords skipped = new SkippedRecords(source.path().toString());
        TraceEventsJson.read(source, sink, (field, p) -> {
            switch (field) {
                case "traceEvents" -> readEvents(p, sink, links, events, skipped);
                case "distributedInfo" -> readDistributedInfo(p, sink);
                case "baseTimeNanoseconds" -> {
                    sink.anchor(new ClockAnchor(CLOCK, 0, ClockDomain.EPOCH, p.getLongValue()));
                    sawBase[0] = true;
                }
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }, () -> events.read);
        Links.emit(List.of(links), sink);
        if (skipped.warning() != null) {
            sink.warning(skipped.warning());
        }
        if (!sawBase[0]) {
            // without a base, Kineto timestamps are microseconds since the Unix epoch
            sink.anchor(new ClockAnchor(CLOCK, 0, ClockDomain.EPOCH, 0));
        }
    }

    private static void readDistributedInfo(JsonParser p, TraceSink sink) throws IOException {
        int rank = TraceSink.UNKNOWN_RANK;
        int worldSize = 0;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            if ("rank".equals(field) && v.isNumeric()) {
                rank = p.getIntValue();
            } else if ("world_size".equals(field) && v.isNumeric()) {
                worldSize = p.getIntValue();
            } else if (v.isStructStart()) {
                p.skipChildren();
            }
        }
        if (rank != TraceSink.UNKNOWN_RANK) {
            sink.declaredRank(rank, worldSize);
        }
    }

    /**
     * A large plain trace read in pieces on two threads, each taking the next piece when done with one: pieces start at
     * the first event at or after an even share of the file (a guess, from the bytes {@code "}, {"}), and each piece's
     * parser stops at the next piece's start. A guess is right when the parser of the piece before finds an event of
     * "traceEvents" starting exactly there; then every piece's records, buffered, go to the sink in file order, as one
     * pass would have sent them. Anything else — a wrong guess, a damaged or cut file, a skipped record, a byte that is
     * not UTF-8 — and the file is read again in one pass, so that a damaged trace gets exactly the warnings it always
     * did. Two halves, one a thread, finished up to 0.1-0.2 s apart on 2 CPUs shared with the JIT's compiler thread
     * (17 and 52 MB traces), the one sharing its CPU with the compiler falling behind; pieces of about 2 MiB keep both
     * threads busy to the end.
     */
    private static final class Pieces {
        private static final byte[] OPEN = "{\"traceEvents\":[".getBytes(StandardCharsets.US_ASCII);
        private static final int SEARCH_BYTES = 1 << 20;
        private static final int FIRST_SEARCH_BYTES = 1 << 16;
        private static final long PIECE_BYTES = 2L << 20;
        private static final int MAX_PIECES = 16;

        static boolean worthSplitting(TraceSource source, long splitFromBytes) throws IOException {
            return !source.isGzip() && Runtime.getRuntime().availableProcessors() > 1
                    && Files.size(source.path()) >= splitFromBytes;
        }

        /** Pieces of about {@link #PIECE_BYTES}, at least two and at most {@link #MAX_PIECES}. */
        static int count(long bytes) {
            return (int) Math.max(2, Math.min(MAX_PIECES, bytes / PIECE_BYTES));
        }

        /** Reads the file in {@code n} pieces into {@code sink}; false (the sink untouched) when it must be read in one. */
        static boolean read(TraceSource source, TraceSink sink, int n) throws IOException {
            long size = Files.size(source.path());
            long[] starts = new long[n + 1];
            starts[n] = size;
            for (int k = 1; k < n; k++) {
                starts[k] = eventStartAfter(source.path(), Math.max(size / n * k, starts[k - 1] + 1));
                if (starts[k] < 0) {
                    return false;
                }
            }
            Piece[] pieces = new Piece[n];
            AtomicInteger next = new AtomicInteger();
            AtomicBoolean failed = new AtomicBoolean();
            Runnable work = () -> {
                Event e = new Event();  // each thread's own, with its shared texts
                for (int k = next.getAndIncrement(); k < n && !failed.get(); k = next.getAndIncrement()) {
                    Piece piece = piece(source, k, n, starts, e);
                    pieces[k] = piece;
                    if (!piece.clean) {
                        failed.set(true);
                    }
                }
            };
            FutureTask<Void> helper = new FutureTask<>(work, null);
            Thread thread = new Thread(helper, "aorta-kineto-pieces");
            thread.setDaemon(true);
            thread.start();
            try {
                work.run();
                helper.get();
            } catch (ExecutionException e) {
                return false;  // read again in one pass, which reports what went wrong as it always did
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + source.path());
            } finally {
                failed.set(true);
                helper.cancel(true);
            }
            for (Piece piece : pieces) {
                if (piece == null || !piece.clean) {
                    return false;
                }
            }
            boolean sawBase = false;
            List<Links> links = new ArrayList<>();
            for (Piece piece : pieces) {
                piece.records.replayInto(sink);
                links.add(piece.links);
                sawBase |= piece.sawBase;
            }
            Links.emit(links, sink);
            if (!sawBase) {
                sink.anchor(new ClockAnchor(CLOCK, 0, ClockDomain.EPOCH, 0));
            }
            return true;
        }

        /** The offset of the first "{" after {@code from} that follows "}" and "," (spaces between), or -1. */
        private static long eventStartAfter(Path path, long from) throws IOException {
            try (FileChannel ch = FileChannel.open(path)) {
                // the next event is nearly always within a few kilobytes: a small read first
                for (int bytes = FIRST_SEARCH_BYTES; ; bytes = SEARCH_BYTES) {
                    ByteBuffer buf = ByteBuffer.allocate(bytes);
                    ch.read(buf, from);
                    int n = buf.position();
                    int state = 0;  // 0: looking for '}', 1: after '}', 2: after '}' ','
                    for (int i = 0; i < n; i++) {
                        byte b = buf.get(i);
                        boolean space = b == ' ' || b == '\n' || b == '\r' || b == '\t';
                        if (b == '}') {
                            state = 1;
                        } else if (state == 1 && b == ',') {
                            state = 2;
                        } else if (state == 2 && b == '{') {
                            return from + i;
                        } else if (!space) {
                            state = 0;
                        }
                    }
                    if (bytes == SEARCH_BYTES || n < bytes) {
                        return -1;
                    }
                }
            }
        }

        /**
         * Piece {@code k} of {@code n}: from {@code starts[k]} up to the event starting at {@code starts[k + 1]}, which
         * it must find there (the last piece reads to the end). The first reads the fields before "traceEvents", the
         * last those after it; the others read their events as the elements of a "traceEvents" of their own.
         */
        private static Piece piece(TraceSource source, int k, int n, long[] starts, Event e) {
            Piece h = new Piece(source);
            // the parser stops at the "{" of the next piece's first event; what it buffered beyond is not read
            try (InputStream file = source.open()) {
                file.skipNBytes(starts[k]);
                long offset = k == 0 ? 0 : OPEN.length - starts[k];  // a file offset's in the parser's input
                try (Utf8Repair in = new Utf8Repair(file);
                     JsonParser p = TraceEventsJson.JSON.createParser(k == 0 ? in
                             : new SequenceInputStream(new ByteArrayInputStream(OPEN), in))) {
                    if (p.nextToken() != JsonToken.START_OBJECT) {
                        return h;
                    }
                    boolean last = k == n - 1;
                    long stopAt = last ? Long.MAX_VALUE : starts[k + 1] + offset;
                    boolean stopped = false;
                    String field;
                    while ((field = p.nextFieldName()) != null) {
                        p.nextToken();
                        if (field.equals("traceEvents")) {
                            stopped = readEvents(p, h.records, h.links, h.events, h.skipped, stopAt, e);
                            if (!last) {
                                break;
                            }
                        } else {
                            h.topLevelField(field, p);
                        }
                    }
                    h.clean = (last || stopped) && in.replaced() == 0 && h.skipped.total() == 0
                            && h.records.onlyRecords;
                }
            } catch (IOException | RuntimeException damagedOrWrongGuess) {
                h.clean = false;
            }
            return h;
        }
    }

    /** What one piece read: its records (buffered until every piece is known to be whole), links and counts. */
    private static final class Piece {
        final BufferedRecords records = new BufferedRecords();
        final Links links = new Links();
        final EventCount events = new EventCount();
        final SkippedRecords skipped;
        boolean sawBase;
        boolean clean;

        Piece(TraceSource source) {
            this.skipped = new SkippedRecords(source.path().toString());
        }

        /** A field of the trace object other than "traceEvents", read as a one-pass read does. */
        void topLevelField(String field, JsonParser p) throws IOException {
            switch (field) {
                case "distributedInfo" -> readDistributedInfo(p, records);
                case "baseTimeNanoseconds" -> {
                    records.anchor(new ClockAnchor(CLOCK, 0, ClockDomain.EPOCH, p.getLongValue()));
                    sawBase = true;
                }
                default -> p.skipChildren();
            }
        }
    }

    /**
     * The records a piece sends while it is read (device records, markers, anchors, the rank), kept in order of
     * arrival per kind; anything else a clean read never sends, and it makes the piece not {@link #onlyRecords}.
     */
    private static final class BufferedRecords implements TraceSink {
        final ActivityColumns activities = new ActivityColumns();
        final List<Marker> markers = new ArrayList<>();
        final List<ClockAnchor> anchors = new ArrayList<>();
        int rank = UNKNOWN_RANK;
        int worldSize;
        boolean declared;
        boolean onlyRecords = true;

        @Override
        public void activity(DeviceActivity a) {
            activities.add(a);
        }

        @Override
        public void marker(Marker m) {
            markers.add(m);
        }

        @Override
        public void anchor(ClockAnchor a) {
            anchors.add(a);
        }

        @Override
        public void declaredRank(int rank, int worldSize) {
            this.rank = rank;
            this.worldSize = worldSize;
            this.declared = true;
        }

        @Override
        public void api(ApiCall c) {
            onlyRecords = false;
        }

        @Override
        public void stream(dev.aorta.core.event.StreamInfo s) {
            onlyRecords = false;
        }

        @Override
        public void dependency(Dependency d) {
            onlyRecords = false;
        }

        @Override
        public void warning(String message) {
            onlyRecords = false;
        }

        @Override
        public void malformed(long lineNumber, String reason) {
            onlyRecords = false;
        }

        void replayInto(TraceSink sink) {
            if (declared) {
                sink.declaredRank(rank, worldSize);
            }
            anchors.forEach(sink::anchor);
            for (int i = 0; i < activities.size(); i++) {
                sink.activity(activities.get(i));
            }
            markers.forEach(sink::marker);
        }
    }

    /**
     * What links records across the trace: the host start of each runtime call by correlation id, and the
     * stream-wait-event records, which become dependencies once the calls they refer to are known.
     */
    private static final class Links {
        final List<long[]> waits = new ArrayList<>(); // {event, recordStream, recordCorrelation, waitStream, waitCorrelation, ts}
        /** The arguments of ops that launched collectives or GEMMs, by their External id. */
        final Map<Long, Map<String, Object>> opArgs = new HashMap<>();
        /** Runtime calls and the External id of the op they were made in (0: none), emitted once every op is known. */
        final ApiCallColumns calls = new ApiCallColumns();
        final LongStream.Builder callOps = LongStream.builder();

        /**
         * Sends the calls and the dependencies of links read in this order, as one pass over them all would have: each
         * call with the arguments of its op wherever in the file the op was (the first read of an External id), each
         * wait with the last calls read with its correlation ids. The calls stay in each piece's columns.
         */
        static void emit(List<Links> inOrder, TraceSink sink) {
            Map<Long, Map<String, Object>> opArgs = inOrder.get(0).opArgs;
            for (int k = 1; k < inOrder.size(); k++) {
                inOrder.get(k).opArgs.forEach(opArgs::putIfAbsent);
            }
            for (Links links : inOrder) {
                links.emitCalls(sink, opArgs);
            }
            int[][] byCorrelation = null;
            for (Links links : inOrder) {
                for (long[] w : links.waits) {
                    if (byCorrelation == null) {
                        byCorrelation = new int[inOrder.size()][];
                        for (int k = 0; k < byCorrelation.length; k++) {
                            ApiCallColumns calls = inOrder.get(k).calls;
                            byCorrelation[k] = StableOrder.byKey(calls.size(), calls::correlationId);
                        }
                    }
                    long recordNs = startOfLastCall(inOrder, byCorrelation, w[2]);
                    if (recordNs == NO_CALL) {
                        continue; // the cudaEventRecord fell outside the profiled window
                    }
                    long waitNs = startOfLastCall(inOrder, byCorrelation, w[4]);
                    sink.dependency(new Dependency(w[0], w[1], recordNs, w[3], waitNs == NO_CALL ? w[5] : waitNs,
                            CLOCK));
                }
            }
        }

        private void emitCalls(TraceSink sink, Map<Long, Map<String, Object>> opArgs) {
            long[] ops = callOps.build().toArray();
            for (int i = 0; i < calls.size(); i++) {
                sink.api(calls, i, ops[i] == 0 ? null : opArgs.get(ops[i]));
            }
        }

        /** The start of the last call read with this correlation id in any of the links, or {@link #NO_CALL}. */
        private static long startOfLastCall(List<Links> inOrder, int[][] byCorrelation, long correlation) {
            for (int k = inOrder.size() - 1; k >= 0; k--) {
                long ns = inOrder.get(k).startOfLastCall(byCorrelation[k], correlation);
                if (ns != NO_CALL) {
                    return ns;
                }
            }
            return NO_CALL;
        }

        private static final long NO_CALL = Long.MIN_VALUE;

        /** The start of the last call read with this correlation id (0 is no id), or {@link #NO_CALL}. */
        private long startOfLastCall(int[] byCorrelation, long correlation) {
            if (correlation == 0) {
                return NO_CALL;
            }
            int lo = 0;
            int hi = byCorrelation.length;
            while (lo < hi) {  // the first call with a larger id
                int mid = (lo + hi) >>> 1;
                if (calls.correlationId(byCorrelation[mid]) <= correlation) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo > 0 && calls.correlationId(byCorrelation[lo - 1]) == correlation
                    ? calls.startNs(byCorrelation[lo - 1]) : NO_CALL;
        }
    }

    /** The trace events read so far, counted as they are read so that a trace cut short still reports them. */
    private static final class EventCount {
        long read;
    }

    private static void readEvents(JsonParser p, TraceSink sink, Links links, EventCount count,
                                   SkippedRecords skipped) throws IOException {
        readEvents(p, sink, links, count, skipped, Long.MAX_VALUE, new Event());
    }

    /**
     * Reads the events of "traceEvents" up to the one starting at byte {@code stopAt}; true when it stopped there
     * (that event unread), false when the array ended first or no event started exactly there.
     */
    private static boolean readEvents(JsonParser p, TraceSink sink, Links links, EventCount count,
                                      SkippedRecords skipped, long stopAt, Event e) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return false;
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
            e.clear();
            e.offset = p.currentTokenLocation().getByteOffset();
            if (e.offset >= stopAt) {
                return e.offset == stopAt;
            }
            readEvent(p, e);
            emit(e, sink, links, skipped);
            count.read++;
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new IOException("\"traceEvents\" is not an array of objects");
        }
        return false;
    }

    /** The fields of one trace event that matter; reused for every event to keep parsing allocation-free. */
    private static final class Event {
        String ph;
        String cat;
        String name;
        long pid;
        long tid;
        long ts = Long.MIN_VALUE;
        long dur;
        long stream = -1;
        long device = -1;
        long correlation;
        long bytes;
        Dim3 grid = Dim3.NONE;
        Dim3 block = Dim3.NONE;
        String syncKind;
        long waitOnStream = -1;
        long waitOnRecordCorrelation = -1;
        long waitOnEvent = -1;
        long externalId;
        String collective;
        long inElements = -1;
        long outElements = -1;
        int groupSize = -1;
        String dtype;
        String processGroup;
        long[][] inputDims;
        List<String> inputTypes;
        /** Why a time of this event could not be read ("\"ts\" not a number"), or null. */
        String damage;
        /** Where the event starts in the content, for the skip warning. */
        long offset;
        /** The texts read so far, shared (kept across events). */
        private final CanonicalStrings texts = new CanonicalStrings();

        /** A value's text: a string's shared one, any other value's as Jackson gives it. */
        String text(JsonParser p, JsonToken v) throws IOException {
            return v == JsonToken.VALUE_STRING ? texts.text(p) : p.getText();
        }

        void clear() {
            ph = null;
            cat = null;
            name = null;
            pid = 0;
            tid = 0;
            ts = Long.MIN_VALUE;
            dur = 0;
            stream = -1;
            device = -1;
            correlation = 0;
            bytes = 0;
            grid = Dim3.NONE;
            block = Dim3.NONE;
            syncKind = null;
            waitOnStream = -1;
            waitOnRecordCorrelation = -1;
            waitOnEvent = -1;
            externalId = 0;
            collective = null;
            inElements = -1;
            outElements = -1;
            groupSize = -1;
            dtype = null;
            processGroup = null;
            inputDims = null;
            inputTypes = null;
            damage = null;
        }
    }

    private static void readEvent(JsonParser p, Event e) throws IOException {
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "ph" -> e.ph = e.text(p, v);
                case "cat" -> e.cat = e.text(p, v);
                case "name" -> e.name = e.text(p, v);
                case "pid", "tid" -> {
                    try {
                        long id = JsonNumbers.idValue(p, 0);
                        if (field.equals("pid")) {
                            e.pid = id;
                        } else {
                            e.tid = id;
                        }
                    } catch (NumberFormatException bad) {
                        e.damage = e.damage != null ? e.damage : "\"" + field + "\" " + bad.getMessage();
                    }
                }
                case "ts", "dur" -> {
                    try {
                        long ns = JsonNumbers.microsToNanos(p);
                        if (field.equals("ts")) {
                            e.ts = ns;
                        } else {
                            e.dur = ns;
                        }
                    } catch (NumberFormatException bad) {
                        e.damage = e.damage != null ? e.damage : "\"" + field + "\" " + bad.getMessage();
                    }
                }
                case "args" -> {
                    if (v == JsonToken.START_OBJECT) {
                        readArgs(p, e);
                    } else if (v.isStructStart()) {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
    }

    private static void readArgs(JsonParser p, Event e) throws IOException {
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            try {
                readArg(p, e, field, v);
            } catch (NumberFormatException bad) {
                // the value was read whole, so the next field can be: the event is skipped, the file read on
                e.damage = e.damage != null ? e.damage : "\"args." + field + "\" " + bad.getMessage();
            }
        }
    }

    private static void readArg(JsonParser p, Event e, String field, JsonToken v) throws IOException {
        switch (field) {
            case "stream" -> e.stream = JsonNumbers.idValue(p, -1);
            case "device" -> e.device = JsonNumbers.idValue(p, -1);
            case "correlation" -> e.correlation = JsonNumbers.idValue(p, 0);
            case "bytes" -> e.bytes = JsonNumbers.idValue(p, 0);
            case "grid" -> e.grid = dim(p, v);
            case "cuda_sync_kind" -> e.syncKind = e.text(p, v);
            case "wait_on_stream" -> e.waitOnStream = JsonNumbers.idValue(p, -1);
            case "wait_on_cuda_event_record_corr_id" -> e.waitOnRecordCorrelation = JsonNumbers.idValue(p, -1);
            case "wait_on_cuda_event_id" -> e.waitOnEvent = JsonNumbers.idValue(p, -1);
            case "block" -> e.block = dim(p, v);
            case "External id" -> e.externalId = JsonNumbers.idValue(p, 0);
            case "Collective name" -> e.collective = v == JsonToken.VALUE_STRING ? p.getText() : skip(p);
            case "In msg nelems" -> e.inElements = JsonNumbers.idValue(p, -1);
            case "Out msg nelems" -> e.outElements = JsonNumbers.idValue(p, -1);
            case "Group size" -> e.groupSize = (int) Math.min(Integer.MAX_VALUE, JsonNumbers.idValue(p, -1));
            case "dtype" -> e.dtype = v == JsonToken.VALUE_STRING ? p.getText() : skip(p);
            case "Process Group Name" -> e.processGroup = v.isScalarValue() ? p.getText() : skip(p);
            case "Input Dims" -> e.inputDims = dims(p, v);
            case "Input type" -> e.inputTypes = strings(p, v);
            default -> p.skipChildren();  // does nothing unless on an object or array start
        }
    }

    /** Skips a value of a type the field should not have; the field stays unknown. */
    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    /** {@code Input Dims}: one array of sizes per input; an input that is not a tensor (a scalar, a list) is null. */
    private static long[][] dims(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            skip(p);
            return null;
        }
        List<long[]> inputs = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                skip(p);
                inputs.add(null);
                continue;
            }
            List<Long> sizes = new ArrayList<>();
            boolean tensor = true;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                    sizes.add(p.getLongValue());
                } else {
                    tensor = false;
                    skip(p);
                }
            }
            inputs.add(tensor ? sizes.stream().mapToLong(Long::longValue).toArray() : null);
        }
        return inputs.toArray(long[][]::new);
    }

    private static List<String> strings(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            skip(p);
            return null;
        }
        List<String> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            out.add(p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : skip(p));
        }
        return out;
    }

    private static Dim3 dim(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            if (v.isStructStart()) {
                p.skipChildren();
            }
            return Dim3.NONE;
        }
        int[] xyz = new int[3];
        int i = 0;
        boolean outOfRange = false;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (i < 3 && p.currentToken().isNumeric()) {
                double d = p.getDoubleValue();
                outOfRange |= d < Integer.MIN_VALUE || d > Integer.MAX_VALUE;
                xyz[i] = outOfRange ? 0 : (int) d;
            } else if (p.currentToken().isStructStart()) {
                p.skipChildren();
            }
            i++;
        }
        if (outOfRange) {
            throw new NumberFormatException("beyond 32 bits");  // the array is read whole: the parser can go on
        }
        return new Dim3(xyz[0], xyz[1], xyz[2]);
    }

    /** Whether the event is one the event model takes: a device record, a runtime call, a step or a range. */
    private static boolean measured(Event e) {
        return e.cat != null && switch (e.cat) {
            case "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cuda_sync", "user_annotation",
                 "gpu_user_annotation" -> true;
            // most events are ops: the prefix test spares a regex match for each
            case "cpu_op" -> e.name != null && e.name.startsWith("ProfilerStep#")
                    && PROFILER_STEP.matcher(e.name).matches();
            default -> false;
        };
    }

    /**
     * The time of an event the model takes, or a skip counted by reason: a damaged time is never read as a
     * plausible one, and a device record that is not a complete event ({@code ph} other than "X", no {@code ts},
     * a negative {@code dur}) is work whose time is unknown, which the warning must say rather than drop.
     */
    private static boolean timed(Event e, SkippedRecords skipped) {
        String what = switch (e.cat) {
            case "kernel", "gpu_memcpy", "gpu_memset" -> "device records";
            case "cuda_runtime", "cuda_driver", "cuda_sync" -> "runtime calls";
            default -> "steps and ranges";
        };
        String where = "byte " + e.offset;
        if (!"X".equals(e.ph)) {
            // Kineto writes every record the model takes as a complete event; a begin/end or instant one has no span
            skipped.skip(what + " with \"ph\":\"" + e.ph + "\" (not a complete event with a duration)", where);
        } else if (e.damage != null) {
            skipped.skip(what + " whose " + e.damage, where);
        } else if (e.ts == Long.MIN_VALUE) {
            skipped.skip(what + " without \"ts\"", where);
        } else if (e.ts < 0) {
            skipped.skip(what + " with a negative \"ts\"", where);
        } else if (e.dur < 0) {
            skipped.skip(what + " with a negative \"dur\"", where);
        } else if (e.ts > Long.MAX_VALUE - e.dur) {
            skipped.skip(what + " whose end (\"ts\" + \"dur\") is " + JsonNumbers.OUT_OF_RANGE, where);
        } else {
            return true;
        }
        return false;
    }

    private static void emit(Event e, TraceSink sink, Links links, SkippedRecords skipped) {
        if ("cpu_op".equals(e.cat) && e.externalId != 0 && e.damage == null) {
            Map<String, Object> op = OpArguments.of(e.name, e.collective, e.inElements, e.outElements, e.groupSize,
                    e.dtype, e.processGroup, e.inputDims, e.inputTypes, e.externalId);
            if (op != null) {
                links.opArgs.putIfAbsent(e.externalId, op);
            }
        }
        if (!measured(e) || !timed(e, skipped)) {
            return;
        }
        long start = e.ts;
        long end = e.ts + e.dur;
        switch (e.cat) {
            case "kernel" -> sink.activity(device(ActivityKind.KERNEL, e, start, end));
            case "gpu_memcpy" -> sink.activity(device(ActivityKind.MEMCPY, e, start, end));
            case "gpu_memset" -> sink.activity(device(ActivityKind.MEMSET, e, start, end));
            case "cuda_runtime", "cuda_driver" -> {
                links.calls.add(new ApiCall(e.name, e.tid, Math.max(e.stream, 0), start, end, e.correlation, 0, Map.of(),
                        CLOCK));
                links.callOps.add(e.externalId);
            }
            case "cuda_sync" -> {
                if ("Stream Wait Event".equals(e.syncKind) && e.stream >= 0 && e.waitOnStream >= 0) {
                    links.waits.add(new long[] {e.waitOnEvent, e.waitOnStream, e.waitOnRecordCorrelation, e.stream,
                            e.correlation, start});
                }
            }
            case "user_annotation", "cpu_op" -> {
                Matcher step = e.name == null ? null : PROFILER_STEP.matcher(e.name);
                if (step != null && step.matches()) {
                    stepMarker(e, step.group(1), start, end, sink, skipped);
                } else if ("user_annotation".equals(e.cat)) {
                    sink.marker(new Marker(Marker.Kind.RANGE, e.name, TraceSink.UNKNOWN_RANK, -1, start, end, CLOCK));
                }
            }
            case "gpu_user_annotation" -> {
                // the GPU-side copy of a ProfilerStep would duplicate the host-side iteration
                if (e.name != null && !PROFILER_STEP.matcher(e.name).matches()) {
                    sink.marker(new Marker(Marker.Kind.RANGE, e.name, TraceSink.UNKNOWN_RANK, -1, start, end, CLOCK));
                }
            }
            default -> {
                // measured() admits only the categories above
            }
        }
    }

    private static void stepMarker(Event e, String number, long start, long end, TraceSink sink,
                                   SkippedRecords skipped) {
        long step;
        try {
            step = Long.parseLong(number);
        } catch (NumberFormatException tooLarge) {
            skipped.skip("steps whose number does not fit 64 bits", "byte " + e.offset);
            return;
        }
        sink.marker(new Marker(Marker.Kind.ITERATION, e.name, TraceSink.UNKNOWN_RANK, step, start, end, CLOCK));
    }

    private static DeviceActivity device(ActivityKind kind, Event e, long start, long end) {
        int device = (int) (e.device >= 0 ? e.device : e.pid);
        long stream = e.stream >= 0 ? e.stream : e.tid;
        return new DeviceActivity(kind, e.name == null ? kind.name() : e.name, TraceSink.UNKNOWN_RANK, device, stream,
                start, end, e.correlation, DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, e.grid, e.block, e.bytes,
                CLOCK);
    }
}
