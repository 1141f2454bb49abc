package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.aorta.analyzer.export.PerfettoExporter;
import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.AortaChromeTrace;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Chrome-trace (Perfetto) JSON that aorta itself writes: the analyzer's merged-timeline export ({@code aorta
 * merge}, the trainer's {@code trace_stepN.json}) and the workloads' {@code aorta run --profile} trace. Their
 * {@code cat} is for display (the activity class, or the kind in lower case), not a Kineto category, so the Kineto
 * reader would find no device records in them.
 *
 * <p>Detected by {@link AortaChromeTrace#VERSION_FIELD} in the file's head. Version 1 carries what the event model
 * needs: each device slice's {@code args.kind}, {@code stream}, {@code device}, {@code correlation} (and bytes,
 * queued/submitted, grid/block when known); markers with {@code args.kind} and {@code args.step} on the
 * "iterations" and "ranges" tracks; API calls ({@code cat} "api") on the tracks of host threads with their correlation
 * id, stream, result and arguments; stream tracks with their id and role; dependencies as flow pairs
 * ({@code ph} "s" where recorded, "f" where waited for, one {@code id}). {@code pid} is the rank when {@code pid_is}
 * is "rank", else the device (the rank then comes from the file's name). Times are microseconds from the first
 * record, read exactly into the {@link ClockDomain#TRACE_RELATIVE} clock.
 *
 * <p>Files written before the mark (version 0) are recognised by their first event as each writer wrote it, and read
 * with what they have: the merge export's slices by their class (communication read as a collective, memory as a
 * copy, which the analyses classify as the export did), the run trace's by their kind, with its track id as stream;
 * neither has the correlation ids that link device work to its launch, so steps are measured on their host ranges.
 * A warning says so. A version newer than this reader knows is an error naming the file and both versions.
 */
public final class AortaChromeTraceReader implements TraceReader {
    private static final ClockDomain CLOCK = ClockDomain.TRACE_RELATIVE;
    private static final Pattern VERSION = Pattern.compile("\"" + AortaChromeTrace.VERSION_FIELD + "\"\\s*:\\s*(\\d{1,9})");
    private static final Pattern PID_IS = Pattern.compile("\"" + AortaChromeTrace.PID_FIELD + "\"\\s*:\\s*\"(\\w+)\"");
    /** The first bytes of a merge export before version 1: its first event names process "rank N". */
    private static final Pattern MERGE_V0 = Pattern.compile("^\\{\"displayTimeUnit\":\"ms\",\"traceEvents\":\\[\\{\"ph\":"
            + "\"M\",\"name\":\"process_name\",\"pid\":(\\d+),\"tid\":0,\"args\":\\{\"name\":\"rank \\1\"}}");
    /** The first bytes of a run --profile trace before version 1: process "GPU N TYPE - WORKLOAD", indented. */
    private static final Pattern RUN_V0 = Pattern.compile("^\\{\\s*\"traceEvents\"\\s*:\\s*\\[\\s*\\{\\s*\"ph\"\\s*:\\s*\"M\""
            + "\\s*,\\s*\"name\"\\s*:\\s*\"process_name\"\\s*,\\s*\"pid\"\\s*:\\s*(\\d+)\\s*,\\s*\"args\"\\s*:\\s*\\{\\s*"
            + "\"name\"\\s*:\\s*\"GPU \\1 [^\"]* - [^\"]*\"\\s*}\\s*}");
    private static final Pattern TRAILING_NUMBER = Pattern.compile("(\\d+)\\D*$");

    /** Which writer and version wrote a file, judged from its head. */
    private enum Flavour { V1, MERGE_V0, RUN_V0 }

    @Override
    public String format() {
        return "aorta-chrome-trace";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return flavour(source.headText()) != null;
    }

    private static Flavour flavour(String head) {
        String h = head.stripLeading();
        if (!h.startsWith("{")) {
            return null;
        }
        if (VERSION.matcher(h).find()) {
            return Flavour.V1;
        }
        if (MERGE_V0.matcher(h).find()) {
            return Flavour.MERGE_V0;
        }
        return RUN_V0.matcher(h).find() ? Flavour.RUN_V0 : null;
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        String head = source.headText().stripLeading();
        Flavour flavour = flavour(head);
        boolean pidIsRank = flavour == Flavour.MERGE_V0;
        if (flavour == Flavour.V1) {
            Matcher v = VERSION.matcher(head);
            v.find();
            long version = Long.parseLong(v.group(1));
            if (version > AortaChromeTrace.VERSION) {
                throw new TraceFormatException(source.path() + ": an aorta Chrome trace of version " + version
                        + ", written by a newer aorta; this analyzer reads versions up to " + AortaChromeTrace.VERSION);
            }
            Matcher pid = PID_IS.matcher(head);
            pidIsRank = pid.find() && pid.group(1).equals(AortaChromeTrace.PID_RANK);
        } else {
            sink.warning(source.path() + ": an aorta Chrome trace written before version " + AortaChromeTrace.VERSION
                    + " of its format: " + (flavour == Flavour.MERGE_V0
                    ? "device kinds are inferred from each slice's activity class, and its API calls carry no"
                    + " correlation ids, so steps are measured on their host ranges; export it again for exact numbers"
                    : "device kinds are read from each slice's \"cat\" and streams are its track numbers; profile the"
                    + " run again for exact stream ids"));
        }
        Events events = new Events(flavour, pidIsRank, new SkippedRecords(source.path().toString()), sink);
        Event e = new Event();
        TraceEventsJson.read(source, sink, (field, p) -> {
            if (p.currentToken() == JsonToken.START_ARRAY && field.equals("traceEvents")) {
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    long offset = p.currentLocation().getByteOffset();
                    e.read(p);
                    events.take(e, offset);
                }
            } else {
                p.skipChildren();
            }
        }, () -> events.read);
        events.finish();
    }

    /** The trace events of one file, turned into records as they come. */
    private static final class Events {
        private final Flavour flavour;
        private final boolean pidIsRank;
        private final SkippedRecords skipped;
        private final TraceSink sink;
        private final TreeSet<Integer> ranks = new TreeSet<>();
        /** Flow id → {record stream, record time, event} of a dependency whose wait has not come yet. */
        private final Map<Long, long[]> openFlows = new HashMap<>();
        long read;

        Events(Flavour flavour, boolean pidIsRank, SkippedRecords skipped, TraceSink sink) {
            this.flavour = flavour;
            this.pidIsRank = pidIsRank;
            this.skipped = skipped;
            this.sink = sink;
        }

        void take(Event e, long offset) {
            read++;
            int rank = pidIsRank && e.pid >= 0 ? (int) e.pid : TraceSink.UNKNOWN_RANK;
            if (rank != TraceSink.UNKNOWN_RANK) {
                ranks.add(rank);
            }
            if ("M".equals(e.ph)) {
                if ("thread_name".equals(e.name) && e.role != null && e.stream != null) {
                    sink.stream(rank, new StreamInfo(e.stream, -1, 0, 0, e.role));
                }
                return;
            }
            String where = "byte " + offset;
            if (e.damage != null) {
                skipped.skip("trace events whose " + e.damage, where);
                return;
            }
            if ("s".equals(e.ph) || "f".equals(e.ph)) {
                if (e.ts < 0 || !"dependency".equals(e.cat)) {
                    skipped.skip("flow events without \"ts\" or of another category than \"dependency\"", where);
                } else if (e.ph.equals("s")) {
                    openFlows.put(e.id, new long[] {e.tid, e.ts, e.event});
                } else {
                    long[] from = openFlows.remove(e.id);
                    if (from == null) {
                        skipped.skip("dependency waits without their record (\"ph\":\"s\" of the same id)", where);
                    } else {
                        sink.dependency(rank, new Dependency(from[2], from[0], from[1], e.tid, e.ts, CLOCK));
                    }
                }
                return;
            }
            if (!"X".equals(e.ph)) {
                return;  // instant and counter events are for display only
            }
            if (e.ts < 0 || e.dur < 0) {
                skipped.skip("slices without \"ts\" or \"dur\", or with a negative one", where);
                return;
            }
            String cat = e.cat == null ? "" : e.cat;
            String name = e.name == null ? cat : e.name;
            long end = e.ts + e.dur;
            switch (cat) {
                case "iteration", "range" -> marker(e, cat, rank, name, end);
                case "api" -> sink.api(rank, new ApiCall(name, e.tid - PerfettoExporter.HOST_TID_BASE,
                        e.stream == null ? 0 : e.stream, e.ts, end, e.correlation, e.result, e.callArgs, CLOCK));
                default -> {
                    ActivityKind kind = kind(cat, e.kind);
                    if (kind == null) {
                        skipped.skip("device slices without a known \"args.kind\"", where);
                        return;
                    }
                    long stream = flavour == Flavour.RUN_V0 || e.stream == null ? e.tid : e.stream;
                    int device = (int) (e.device >= 0 ? e.device : Math.max(e.pid, 0));
                    sink.activity(new DeviceActivity(kind, name, rank, device, stream, e.ts, end, e.correlation,
                            e.queued, e.submitted, e.grid, e.block, e.bytes, CLOCK));
                }
            }
        }

        private void marker(Event e, String cat, int rank, String name, long end) {
            Marker.Kind kind = cat.equals("iteration") ? Marker.Kind.ITERATION : Marker.Kind.RANGE;
            for (Marker.Kind k : Marker.Kind.values()) {
                kind = k.name().equals(e.kind) ? k : kind;
            }
            long step = -1;
            if (e.step != null) {
                step = e.step;
            } else if (kind == Marker.Kind.ITERATION) {
                // before version 1 the step number is only in the name ("step 12", "ProfilerStep#12")
                Matcher m = TRAILING_NUMBER.matcher(name);
                step = m.find() ? Long.parseLong(m.group(1)) : -1;
            }
            sink.marker(new Marker(kind, name, rank, step, e.ts, end, CLOCK));
        }

        /** The slice's kind: {@code args.kind} from version 1 on, else what its {@code cat} says. */
        private ActivityKind kind(String cat, String argsKind) {
            if (flavour == Flavour.V1) {
                for (ActivityKind k : ActivityKind.values()) {
                    if (k.name().equals(argsKind)) {
                        return k;
                    }
                }
                return null;
            }
            return switch (cat) {
                // the merge export's classes: ActivityClassifier gives each of these kinds that class back
                case "compute" -> ActivityKind.KERNEL;
                case "communication" -> ActivityKind.COLLECTIVE;
                case "memory" -> ActivityKind.MEMCPY;
                case "other" -> ActivityKind.OTHER;
                // the run trace's kinds
                case "kernel", "memcpy", "memset", "collective" -> ActivityKind.valueOf(cat.toUpperCase(Locale.ROOT));
                default -> null;
            };
        }

        void finish() {
            if (!openFlows.isEmpty()) {
                skipped.skip("dependency records without their wait (\"ph\":\"f\" of the same id)", null);
            }
            if (skipped.warning() != null) {
                sink.warning(skipped.warning());
            }
            if (!ranks.isEmpty()) {
                // records carry their own ranks; the file's is its lowest (a merge export may hold several)
                sink.declaredRank(ranks.first(), 0);
            }
        }
    }

    /** The fields of one trace event that matter; reused for every event. */
    private static final class Event {
        String ph;
        String cat;
        String name;
        long pid;
        long tid;
        long ts;
        long dur;
        long id;
        String kind;
        long device;
        Long stream;
        long correlation;
        long bytes;
        long queued;
        long submitted;
        Dim3 grid;
        Dim3 block;
        Long step;
        String role;
        long event;
        int result;
        Map<String, Object> callArgs;
        /** Why a field could not be read ("\"ts\" not a number"), or null. */
        String damage;

        void read(JsonParser p) throws IOException {
            ph = null;
            cat = null;
            name = null;
            pid = -1;
            tid = 0;
            ts = -1;
            dur = -1;
            id = 0;
            kind = null;
            device = -1;
            stream = null;
            correlation = 0;
            bytes = 0;
            queued = DeviceActivity.UNKNOWN;
            submitted = DeviceActivity.UNKNOWN;
            grid = Dim3.NONE;
            block = Dim3.NONE;
            step = null;
            role = null;
            event = 0;
            result = 0;
            callArgs = Map.of();
            damage = null;
            String field;
            while ((field = p.nextFieldName()) != null) {
                JsonToken v = p.nextToken();
                try {
                    switch (field) {
                        case "ph" -> ph = p.getValueAsString();
                        case "cat" -> cat = p.getValueAsString();
                        case "name" -> name = p.getValueAsString();
                        case "pid" -> pid = JsonNumbers.idValue(p, -1);
                        case "tid" -> tid = JsonNumbers.idValue(p, 0);
                        case "id" -> id = JsonNumbers.idValue(p, 0);
                        case "ts" -> ts = JsonNumbers.microsToNanos(p);
                        case "dur" -> dur = JsonNumbers.microsToNanos(p);
                        case "args" -> readArgs(p, v);
                        default -> p.skipChildren();
                    }
                } catch (NumberFormatException bad) {
                    damage = damage != null ? damage : "\"" + field + "\" " + bad.getMessage();
                }
            }
        }

        private void readArgs(JsonParser p, JsonToken v) throws IOException {
            if (v != JsonToken.START_OBJECT) {
                p.skipChildren();
                return;
            }
            String field;
            while ((field = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                try {
                    readArg(p, field, t);
                } catch (NumberFormatException bad) {
                    // the value was read whole, so the next field can be: the event is skipped, the file read on
                    damage = damage != null ? damage : "\"args." + field + "\" " + bad.getMessage();
                }
            }
        }

        private void readArg(JsonParser p, String field, JsonToken t) throws IOException {
            switch (field) {
                case "kind" -> kind = p.getValueAsString();
                case "device" -> device = JsonNumbers.idValue(p, -1);
                case "stream" -> stream = JsonNumbers.idValue(p, 0);
                case "correlation" -> correlation = JsonNumbers.idValue(p, 0);
                case "bytes" -> bytes = JsonNumbers.idValue(p, 0);
                case "queued", "queued_us" -> queued = JsonNumbers.microsToNanos(p);
                case "submitted" -> submitted = JsonNumbers.microsToNanos(p);
                case "grid" -> grid = dim(p, t);
                case "block" -> block = dim(p, t);
                case "step" -> step = JsonNumbers.idValue(p, -1);
                case "role" -> role = p.getValueAsString();
                case "event" -> event = JsonNumbers.idValue(p, 0);
                case "result" -> result = (int) JsonNumbers.idValue(p, 0);
                case "call_args" -> callArgs = callArgs(p, t);
                default -> p.skipChildren();
            }
        }
    }

    private static Dim3 dim(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            p.skipChildren();
            return Dim3.NONE;
        }
        int[] xyz = new int[3];
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (i < 3 && p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                xyz[i] = p.getIntValue();
            } else {
                p.skipChildren();
            }
            i++;
        }
        return new Dim3(xyz[0], xyz[1], xyz[2]);
    }

    /** An API call's arguments as the agent's JSONL reader gives them: whole numbers as int or long, text, booleans. */
    private static Map<String, Object> callArgs(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_OBJECT) {
            p.skipChildren();
            return Map.of();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            switch (t) {
                case VALUE_NUMBER_INT -> out.put(field, p.getNumberType() == JsonParser.NumberType.INT
                        ? (Object) p.getIntValue() : (Object) p.getLongValue());
                case VALUE_NUMBER_FLOAT -> out.put(field, p.getDoubleValue());
                case VALUE_TRUE, VALUE_FALSE -> out.put(field, p.getBooleanValue());
                case VALUE_STRING -> out.put(field, p.getText());
                default -> p.skipChildren();
            }
        }
        return out;
    }
}
