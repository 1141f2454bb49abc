package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.JvmPause;
import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JFR recordings ({@code .jfr}) made with the agent: every {@code aorta.*} event is read generically by its field
 * names, and the JVM's own pauses are kept for attributing GPU idle time.
 *
 * <ul>
 *   <li>{@code aorta.Iteration} → ITERATION marker ({@code step} or {@code iteration} field);</li>
 *   <li>{@code aorta.DeviceActivity} and any {@code aorta.*} event with a {@code kind} field naming an activity kind
 *       (KERNEL, MEMCPY, ...) → device activity;</li>
 *   <li>any other {@code aorta.*} event ({@code aorta.KernelLaunch}, {@code aorta.Collective},
 *       {@code aorta.StreamSync}, ...) → host API call named by its {@code api} (the agent's) or {@code name} field
 *       (else the event type), on thread {@code threadId} (else the event's thread); a collective's {@code count}
 *       and {@code dtype}, a copy's {@code bytes} and {@code copyKind} become the call's arguments.</li>
 * </ul>
 * Times, by the fields the event has: the agent's {@code hostStartNanos} + {@code hostDuration} (host calls and
 * iterations, {@code host-monotonic}) or {@code deviceStartNanos} + {@code deviceDuration} (device activities, in
 * the clock its {@code clock} field names, e.g. {@code cupti}); else {@code startNs}/{@code endNs} in the clock named by
 * a {@code clock} field (default {@code host-monotonic}); else the event's own start and duration (epoch). A
 * host-monotonic event gives the host-monotonic ↔ epoch anchor (the median offset of all of them; the agent commits
 * its events when it drains them, so this anchor is late by the drain delay, about a millisecond, which only
 * places GC pauses and safepoints). GC pauses come from {@code jdk.GCPhasePause}
 * (or {@code jdk.GarbageCollection} for a collection without phase pauses), safepoints from
 * {@code jdk.SafepointBegin} up to the matching {@code jdk.SafepointEnd}.
 */
public final class JfrReader implements TraceReader {
    @Override
    public String format() {
        return "jfr";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return source.isJfr() && !source.isGzip();
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        List<Long> monotonicToEpoch = new ArrayList<>();
        Map<Long, JvmPause> collections = new HashMap<>();
        Map<Long, Boolean> collectionHasPhases = new HashMap<>();
        Map<Long, Instant> safepointStarts = new HashMap<>();
        long events = 0;
        try (RecordingFile file = new RecordingFile(source.path())) {
            while (file.hasMoreEvents()) {
                RecordedEvent e;
                try {
                    e = file.readEvent();
                } catch (IOException | RuntimeException ex) {
                    sink.warning(source.path() + ": recording ends early after " + events + " events (" + ex.getMessage()
                            + "); kept what came before");
                    break;
                }
                events++;
                String type = e.getEventType().getName();
                if (type.startsWith("aorta.")) {
                    readAorta(e, type, sink, monotonicToEpoch);
                } else {
                    switch (type) {
                        case "jdk.GCPhasePause" -> {
                            sink.jvmPause(pause(JvmPause.Kind.GC, string(e, "name", "GC pause"), e));
                            if (e.hasField("gcId")) {
                                collectionHasPhases.put(e.getLong("gcId"), true);
                            }
                        }
                        case "jdk.GarbageCollection" -> {
                            if (e.hasField("gcId")) {
                                collections.put(e.getLong("gcId"), pause(JvmPause.Kind.GC, string(e, "name", "GC"), e));
                            }
                        }
                        case "jdk.SafepointBegin" -> safepointStarts.put(e.getLong("safepointId"), e.getStartTime());
                        case "jdk.SafepointEnd" -> {
                            Instant begin = safepointStarts.remove(e.getLong("safepointId"));
                            if (begin != null) {
                                sink.jvmPause(new JvmPause(JvmPause.Kind.SAFEPOINT, "safepoint", epochNs(begin),
                                        Math.max(epochNs(begin), epochNs(e.getEndTime())), ClockDomain.EPOCH));
                            }
                        }
                        default -> {
                            // other JDK events carry nothing the analyzer uses
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (events == 0) {
                throw new TraceFormatException(source.path() + ": not a readable JFR recording (" + e.getMessage() + ")");
            }
            sink.warning(source.path() + ": recording ends early after " + events + " events (" + e.getMessage() + ")");
        }
        collections.forEach((gcId, pause) -> {
            if (!collectionHasPhases.containsKey(gcId)) {
                sink.jvmPause(pause);
            }
        });
        if (!monotonicToEpoch.isEmpty()) {
            monotonicToEpoch.sort(null);
            long offset = monotonicToEpoch.get(monotonicToEpoch.size() / 2);
            sink.anchor(new ClockAnchor(ClockDomain.HOST_MONOTONIC, 0, ClockDomain.EPOCH, offset));
        }
    }

    private static void readAorta(RecordedEvent e, String type, TraceSink sink, List<Long> monotonicToEpoch) {
        String simple = type.substring("aorta.".length());
        long start;
        long end;
        ClockDomain clock;
        if (e.hasField("hostStartNanos") && e.hasField("hostDuration")) {
            clock = ClockDomain.HOST_MONOTONIC;
            start = e.getLong("hostStartNanos");
            end = start + e.getLong("hostDuration");
        } else if (e.hasField("deviceStartNanos") && e.hasField("deviceDuration")) {
            clock = clock(e);
            start = e.getLong("deviceStartNanos");
            end = start + e.getLong("deviceDuration");
        } else if (e.hasField("startNs") && e.hasField("endNs")) {
            clock = clock(e);
            start = e.getLong("startNs");
            end = e.getLong("endNs");
        } else {
            clock = ClockDomain.EPOCH;
            start = epochNs(e.getStartTime());
            end = epochNs(e.getEndTime());
        }
        if (end < start) {
            sink.warning("JFR event " + type + " ends before it starts; skipped");
            return;
        }
        if (clock == ClockDomain.HOST_MONOTONIC) {
            monotonicToEpoch.add(epochNs(e.getStartTime()) - start);
        }
        int rank = e.hasField("rank") ? (int) e.getLong("rank") : TraceSink.UNKNOWN_RANK;
        String name = string(e, "name", string(e, "api", simple));
        ActivityKind kind = activityKind(e, simple);
        if (simple.equals("Iteration")) {
            long step = e.hasField("step") ? e.getLong("step") : e.hasField("iteration") ? e.getLong("iteration") : -1;
            sink.marker(new Marker(Marker.Kind.ITERATION, name, rank, step, start, end, clock));
        } else if (kind != null) {
            sink.activity(new DeviceActivity(kind, name, rank, (int) number(e, "device", 0), number(e, "stream", 0),
                    start, end, number(e, "correlationId", 0), number(e, "queuedNs", DeviceActivity.UNKNOWN),
                    number(e, "submittedNs", DeviceActivity.UNKNOWN), Dim3.NONE, Dim3.NONE, number(e, "bytes", 0), clock));
        } else {
            RecordedThread thread = e.getThread();
            long threadId = number(e, "threadId", thread == null ? 0 : thread.getJavaThreadId());
            sink.api(new ApiCall(name, threadId, number(e, "stream", 0), start, end, number(e, "correlationId", 0),
                    (int) number(e, "result", 0), callArgs(e, simple, name), clock));
        }
    }

    /** The arguments the metrics read from a host call (names as in the agent's JSONL: {@link OpArguments}). */
    private static Map<String, Object> callArgs(RecordedEvent e, String simple, String name) {
        Map<String, Object> args = new HashMap<>();
        args.put("event", simple);
        if (simple.equals("Collective")) {
            args.put(OpArguments.COLLECTIVE, name);
            args.put("count", number(e, "count", 0));
            args.put(OpArguments.DTYPE, string(e, "dtype", ""));
        }
        if (e.hasField("bytes")) {
            args.put("bytes", number(e, "bytes", 0));
        }
        if (e.hasField("copyKind") && e.getValue("copyKind") != null) {
            args.put("copy_kind", e.getValue("copyKind").toString());
        }
        return args;
    }

    private static ActivityKind activityKind(RecordedEvent e, String simple) {
        if (e.hasField("hostStartNanos") || e.hasField("api")) {
            return null;  // a host call of the agent: its kind ("launch", "memset") names the call, not device work
        }
        String kind = e.hasField("kind") ? String.valueOf((Object) e.getValue("kind")) : null;
        if (kind != null) {
            try {
                return ActivityKind.valueOf(kind.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException notAnActivityKind) {
                // a kind of something else (e.g. a sync kind): not a device activity
            }
        }
        return simple.equals("DeviceActivity") ? ActivityKind.KERNEL : null;
    }

    private static ClockDomain clock(RecordedEvent e) {
        if (e.hasField("clock")) {
            Object v = e.getValue("clock");
            if (v != null) {
                return ClockDomain.fromTag(v.toString());
            }
        }
        return ClockDomain.HOST_MONOTONIC;
    }

    private static JvmPause pause(JvmPause.Kind kind, String cause, RecordedEvent e) {
        return new JvmPause(kind, cause, epochNs(e.getStartTime()), epochNs(e.getEndTime()), ClockDomain.EPOCH);
    }

    private static long number(RecordedEvent e, String field, long dflt) {
        if (!e.hasField(field)) {
            return dflt;
        }
        Object v = e.getValue(field);
        return v instanceof Number n ? n.longValue() : dflt;
    }

    private static String string(RecordedEvent e, String field, String dflt) {
        if (!e.hasField(field)) {
            return dflt;
        }
        Object v = e.getValue(field);
        return v == null ? dflt : v.toString();
    }

    private static long epochNs(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
