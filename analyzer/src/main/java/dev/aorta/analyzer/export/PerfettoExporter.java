package dev.aorta.analyzer.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
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
 */
public final class PerfettoExporter {
    private static final long ITERATIONS_TID = -1;
    private static final long RANGES_TID = -2;
    private static final long HOST_TID_BASE = 1L << 40;

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
                    meta(g, "thread_name", t.rank(), s, "stream " + t.streamLabel(s));
                }
                TreeSet<Long> threads = new TreeSet<>();
                t.apiCalls().forEach(c -> threads.add(c.thread()));
                for (long th : threads) {
                    meta(g, "thread_name", t.rank(), HOST_TID_BASE + th, "host thread " + th);
                }
                for (Marker m : t.markers()) {
                    slice(g, m.name(), m.kind() == Marker.Kind.ITERATION ? "iteration" : "range", t.rank(),
                            m.kind() == Marker.Kind.ITERATION ? ITERATIONS_TID : RANGES_TID, m.startNs() + shift,
                            m.endNs() - m.startNs(), null);
                }
                for (int i = 0; i < t.activities().size(); i++) {
                    DeviceActivity a = t.activities().get(i);
                    slice(g, a.name(), t.classOf(i).name().toLowerCase(Locale.ROOT), t.rank(), a.stream(),
                            a.startNs() + shift, a.durationNs(), a);
                }
                for (ApiCall c : t.apiCalls()) {
                    slice(g, c.name(), "api", t.rank(), HOST_TID_BASE + c.thread(), c.startNs() + shift,
                            c.endNs() - c.startNs(), null);
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

    private static void slice(JsonGenerator g, String name, String cat, int pid, long tid, long startNs, long durNs,
                              DeviceActivity a) throws IOException {
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
        if (a != null) {
            g.writeObjectFieldStart("args");
            g.writeNumberField("device", a.device());
            g.writeNumberField("stream", a.stream());
            g.writeNumberField("correlation", a.correlationId());
            if (a.bytes() != 0) {
                g.writeNumberField("bytes", a.bytes());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** Nanoseconds as a decimal number of microseconds, exact (no binary floating point). */
    static String micros(long ns) {
        String sign = ns < 0 ? "-" : "";
        long abs = Math.abs(ns);
        return String.format(Locale.ROOT, "%s%d.%03d", sign, abs / 1000, abs % 1000);
    }
}
