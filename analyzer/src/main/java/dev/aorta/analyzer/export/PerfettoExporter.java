package dev.aorta.analyzer.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.AortaChromeTrace;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes the merged timeline as Chrome trace-event JSON, which Perfetto and chrome://tracing load: one process per
 * rank ("rank N"), one track per device stream ("stream S"), a track "iterations" with one slice per iteration,
 * a track "ranges" for user ranges and one track per host thread for API calls. Times are the ranks' timeline
 * clocks shifted by the collective-alignment offsets, so ranks line up; {@code ts}/{@code dur} are microseconds with
 * nanosecond decimals, relative to the earliest record so the numbers stay small.
 *
 * <p>So that {@code aorta analyze} can read the file back (a slice's {@code cat} is the analyzer's activity class,
 * which Perfetto colours by, not a Kineto category), it carries what the event model needs beyond the display:
 * the marks of {@link AortaChromeTrace} with {@code pid_is} = "rank"; each device slice's {@code args.kind}, {@code queued}/{@code submitted}
 * (µs on the same scale as {@code ts}) and {@code grid}/{@code block} when known; each iteration's {@code args.step}
 * and each marker's {@code args.kind}; each API call's correlation id, stream, result and arguments; each stream
 * track's id and role; each dependency as a flow (an arrow in Perfetto) from its record on one stream to its wait on
 * another. {@code dev.aorta.analyzer.read.AortaChromeTraceReader} reads it.
 */
public final class PerfettoExporter {
    private static final long ITERATIONS_TID = -1;
    private static final long RANGES_TID = -2;
    /** The host thread of an API call is its track id minus this (the tracks of streams and markers lie below). */
    public static final long HOST_TID_BASE = 1L << 40;

    private PerfettoExporter() {
    }

    public static void write(List<RankTimeline> ranks, Map<Integer, CollectiveAlignment.Offset> offsets,
                             OutputStream out) throws IOException {
        long origin = Long.MAX_VALUE;
        for (RankTimeline t : ranks) {
            long off = offset(offsets, t.rank());
            // activities and markers are sorted by start, so their first element is their earliest
            if (!t.activities().isEmpty()) {
                origin = Math.min(origin, t.activities().get(0).startNs() + off);
            }
            if (!t.markers().isEmpty()) {
                origin = Math.min(origin, t.markers().get(0).startNs() + off);
            }
            for (ApiCall c : t.apiCalls()) {
                origin = Math.min(origin, c.startNs() + off);
            }
        }
        if (origin == Long.MAX_VALUE) {
            origin = 0;
        }
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(out)) {
            g.writeStartObject();
            g.writeObjectFieldStart("otherData");
            g.writeNumberField(AortaChromeTrace.VERSION_FIELD, AortaChromeTrace.VERSION);
            g.writeStringField(AortaChromeTrace.PID_FIELD, AortaChromeTrace.PID_RANK);
            g.writeEndObject();
            g.writeStringField("displayTimeUnit", "ms");
            g.writeArrayFieldStart("traceEvents");
            for (RankTimeline t : ranks) {
                long shift = offset(offsets, t.rank()) - origin;
                meta(g, "process_name", t.rank(), 0, "rank " + t.rank());
                meta(g, "thread_name", t.rank(), ITERATIONS_TID, "iterations");
                meta(g, "thread_name", t.rank(), RANGES_TID, "ranges");
                TreeSet<Long> streams = new TreeSet<>();
                t.activities().forEach(a -> streams.add(a.stream()));
                for (long s : streams) {
                    streamMeta(g, t, s);
                }
                TreeSet<Long> threads = new TreeSet<>();
                t.apiCalls().forEach(c -> threads.add(c.thread()));
                for (long th : threads) {
                    meta(g, "thread_name", t.rank(), HOST_TID_BASE + th, "host thread " + th);
                }
                for (Marker m : t.markers()) {
                    boolean iteration = m.kind() == Marker.Kind.ITERATION;
                    start(g, m.name(), iteration ? "iteration" : "range", t.rank(),
                            iteration ? ITERATIONS_TID : RANGES_TID, m.startNs() + shift, m.endNs() - m.startNs());
                    g.writeObjectFieldStart("args");
                    g.writeStringField("kind", m.kind().name());
                    g.writeNumberField("step", m.step());
                    g.writeEndObject();
                    g.writeEndObject();
                }
                for (int i = 0; i < t.activities().size(); i++) {
                    DeviceActivity a = t.activities().get(i);
                    start(g, a.name(), t.classOf(i).name().toLowerCase(Locale.ROOT), t.rank(), a.stream(),
                            a.startNs() + shift, a.durationNs());
                    activityArgs(g, a, shift);
                    g.writeEndObject();
                }
                for (ApiCall c : t.apiCalls()) {
                    start(g, c.name(), "api", t.rank(), HOST_TID_BASE + c.thread(), c.startNs() + shift,
                            c.endNs() - c.startNs());
                    callArgs(g, c);
                    g.writeEndObject();
                }
                long flow = 0;
                for (Dependency d : t.dependencies()) {
                    flow++;
                    flowEnd(g, "s", t.rank(), d.recordStream(), d.recordNs() + shift, flow, d.event());
                    flowEnd(g, "f", t.rank(), d.waitStream(), d.waitNs() + shift, flow, d.event());
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private static long offset(Map<Integer, CollectiveAlignment.Offset> offsets, int rank) {
        CollectiveAlignment.Offset o = offsets.get(rank);
        return o == null ? 0 : o.offsetNs();
    }

    private static void meta(JsonGenerator g, String what, int pid, long tid, String name) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", "M");
        g.writeStringField("name", what);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", name);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** A stream's track: named for Perfetto, with the stream's id and role for a reader. */
    private static void streamMeta(JsonGenerator g, RankTimeline t, long stream) throws IOException {
        String label = t.streamLabel(stream);
        g.writeStartObject();
        g.writeStringField("ph", "M");
        g.writeStringField("name", "thread_name");
        g.writeNumberField("pid", t.rank());
        g.writeNumberField("tid", stream);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", "stream " + label);
        g.writeNumberField("stream", stream);
        if (!label.equals(Long.toString(stream))) {
            g.writeStringField("role", label);
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Opens a complete event; the caller writes its args and closes it. */
    private static void start(JsonGenerator g, String name, String cat, int pid, long tid, long startNs, long durNs)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", "X");
        g.writeStringField("name", name == null ? cat : name);
        g.writeStringField("cat", cat);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(micros(startNs));
        g.writeFieldName("dur");
        g.writeNumber(micros(durNs));
    }

    private static void activityArgs(JsonGenerator g, DeviceActivity a, long shift) throws IOException {
        g.writeObjectFieldStart("args");
        g.writeStringField("kind", a.kind().name());
        g.writeNumberField("device", a.device());
        g.writeNumberField("stream", a.stream());
        g.writeNumberField("correlation", a.correlationId());
        if (a.bytes() != 0) {
            g.writeNumberField("bytes", a.bytes());
        }
        if (a.queuedNs() != DeviceActivity.UNKNOWN) {
            g.writeFieldName("queued");
            g.writeNumber(micros(a.queuedNs() + shift));
        }
        if (a.submittedNs() != DeviceActivity.UNKNOWN) {
            g.writeFieldName("submitted");
            g.writeNumber(micros(a.submittedNs() + shift));
        }
        dim(g, "grid", a.grid());
        dim(g, "block", a.block());
        g.writeEndObject();
    }

    private static void dim(JsonGenerator g, String field, Dim3 d) throws IOException {
        if (d != null && !d.equals(Dim3.NONE)) {
            g.writeArrayFieldStart(field);
            g.writeNumber(d.x());
            g.writeNumber(d.y());
            g.writeNumber(d.z());
            g.writeEndArray();
        }
    }

    /** A call's correlation id, stream, result and its arguments (under {@code call_args}, as numbers or text). */
    private static void callArgs(JsonGenerator g, ApiCall c) throws IOException {
        g.writeObjectFieldStart("args");
        g.writeNumberField("stream", c.stream());
        g.writeNumberField("correlation", c.correlationId());
        g.writeNumberField("result", c.result());
        if (!c.args().isEmpty()) {
            g.writeObjectFieldStart("call_args");
            for (Map.Entry<String, Object> e : new java.util.TreeMap<>(c.args()).entrySet()) {
                Object v = e.getValue();
                if (v instanceof Long || v instanceof Integer) {
                    g.writeNumberField(e.getKey(), ((Number) v).longValue());
                } else if (v instanceof Number n) {
                    g.writeNumberField(e.getKey(), n.doubleValue());
                } else if (v instanceof Boolean b) {
                    g.writeBooleanField(e.getKey(), b);
                } else {
                    g.writeStringField(e.getKey(), String.valueOf(v));
                }
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** One end of a dependency's flow: "s" where the event was recorded, "f" where a stream waited for it. */
    private static void flowEnd(JsonGenerator g, String ph, int pid, long stream, long atNs, long id, long event)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", ph);
        g.writeStringField("name", "dependency");
        g.writeStringField("cat", "dependency");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", stream);
        g.writeFieldName("ts");
        g.writeNumber(micros(atNs));
        g.writeNumberField("id", id);
        if (ph.equals("f")) {
            g.writeStringField("bp", "e");  // bound to the slice enclosing the wait, or the next one
        }
        g.writeObjectFieldStart("args");
        g.writeNumberField("event", event);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Nanoseconds as a decimal number of microseconds, exact (no binary floating point). */
    static String micros(long ns) {
        String sign = ns < 0 ? "-" : "";
        long abs = Math.abs(ns);
        return String.format(Locale.ROOT, "%s%d.%03d", sign, abs / 1000, abs % 1000);
    }
}
