package dev.aorta.agent.pipeline;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.agent.AgentLog;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.core.metric.SampledBusyTime;
import dev.aorta.core.metric.StreamUtilization;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code rank_<r>_metrics.jsonl}: one line per iteration in the seed trainer's schema (docs/trace-formats.md, AORTA's trainer log),
 * its overlap numbers computed from device activity as docs/metrics.md defines them and clipped to the iteration's host window
 * (mapped onto the device clock by the source's anchor).
 *
 * <p>With sampled event pairs as the device source, each stream's busy time is also estimated from the samples and
 * the count of its launches ({@link SampledStreamBusy}), per iteration in {@code aorta.stream_busy_estimated} and
 * for the whole run in one log line per stream at exit.
 *
 * <p>An iteration's line is written once the next iteration has ended too (or at exit) and the device
 * source has been flushed after that, so that the device activity of its last kernels, which arrives
 * after the host has moved on, is counted.
 */
public final class MetricsSink implements EventSink {
    /** AORTA's {@code overlap_ms} splits communication by collective, by name. */
    static final Pattern ALL_REDUCE = Pattern.compile("(?i)all_?reduce");
    static final Pattern REDUCE_SCATTER = Pattern.compile("(?i)reduce_?scatter");
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Writer file;
    private final int rank;
    private final int worldSize;
    private final int maxRanges;
    private final Supplier<String> deviceSource;
    private final LongSupplier dropped;
    private final LongSupplier droppedDevice;
    private final Map<Long, String> streamRoles = new HashMap<>();
    /** Per activity, a stream label and a class are needed: both are looked up, not rebuilt (few names, few streams). */
    private final Map<Long, String> streamLabels = new HashMap<>();
    private final ActivityClassifier classifier = ActivityClassifier.defaults();
    /** Activities (host clock), in arrival order; pruned once no pending window can need them. */
    private final Deque<Act> activities = new ArrayDeque<>();
    private final List<Dependency> dependencies = new ArrayList<>();
    private final List<Marker> pending = new ArrayList<>();
    private final Map<ClockDomain, Long> toHost = new HashMap<>();
    /** Start of the iteration currently open (host ns), or -1. */
    private final LongSupplier openIteration;
    private long newestEnd = Long.MIN_VALUE / 2;
    /** Without markers, activities are kept this long (host clock) for a window that may still claim them. */
    static final long UNCLAIMED_NS = 30_000_000_000L;
    /** Prune between windows once this many activities are held. */
    static final int PRUNE_ABOVE = 50_000;
    /** Or once this many launch times are held for the busy-time estimate (8 bytes each). */
    static final int PRUNE_LAUNCHES_ABOVE = 1_000_000;
    private long unmappable;
    private long pruneVisits;
    /** Streams listed in the exit summary of estimated busy times; the others are counted. */
    static final int SUMMARY_STREAMS = 16;
    private final SampledStreamBusy sampledBusy = new SampledStreamBusy();
    /** Whether the device source samples launches (decided at the first record: the source is set before any). */
    private Boolean sampling;

    private record Act(DeviceActivity a, long start, long end, String stream, ActivityClass clazz) {
    }

    /** The overlap metrics of a window and AORTA's split of the overlap by collective. */
    private record DeviceMetrics(OverlapMetrics overlap, long computeAllReduce, long computeReduceScatter) {
    }

    public MetricsSink(Path path, int rank, int worldSize, int maxRanges, Supplier<String> deviceSource,
                       LongSupplier dropped, LongSupplier droppedDevice, LongSupplier openIteration) throws IOException {
        this.openIteration = openIteration;
        this.file = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
        this.rank = rank;
        this.worldSize = worldSize;
        this.maxRanges = maxRanges;
        this.deviceSource = deviceSource;
        this.dropped = dropped;
        this.droppedDevice = droppedDevice;
        toHost.put(ClockDomain.HOST_MONOTONIC, 0L);
    }

    /**
     * API calls do not enter the overlap metrics (built from device activity and markers): none is made into an
     * object. With a sampling device source, kernel launches are counted per stream for the busy-time estimate.
     */
    @Override
    public void call(CallRecord call) {
        if (call.kind() == CallKind.LAUNCH && sampling()) {
            sampledBusy.launch(call.stream(), call.startNs());
        }
    }

    private boolean sampling() {
        if (sampling == null) {
            sampling = deviceSource.get().startsWith("events");
        }
        return sampling;
    }

    @Override
    public void stream(StreamInfo s) {
        if (s.role() != null) {
            streamRoles.put(s.id(), s.role());
            streamLabels.remove(s.id());
        }
    }

    @Override
    public void anchor(ClockAnchor a) {
        if (a.to() == ClockDomain.HOST_MONOTONIC) {
            toHost.put(a.from(), a.toNs() - a.fromNs());
        }
    }

    @Override
    public void dependency(Dependency d) {
        dependencies.add(d);
    }

    @Override
    public void activity(DeviceActivity a) {
        Long offset = toHost.get(a.clock());
        if (offset == null) {
            unmappable++;
            return;
        }
        activities.add(new Act(a, a.startNs() + offset, a.endNs() + offset,
                streamLabels.computeIfAbsent(a.stream(), this::label), classifier.classify(a)));
        if (sampling()) {
            sampledBusy.sample(a.stream(), a.startNs() + offset, a.endNs() - a.startNs());
        }
        newestEnd = Math.max(newestEnd, a.endNs() + offset);
    }

    private String label(long stream) {
        String role = streamRoles.get(stream);
        if (role != null) {
            return role;
        }
        return stream == 0 ? "default" : "0x" + Long.toHexString(stream);
    }

    @Override
    public void marker(Marker m) throws IOException {
        if (m.kind() != Marker.Kind.ITERATION) {
            return;
        }
        pending.add(m);
    }

    /**
     * Called after each drain cycle, once the device source was flushed: writes every window but the
     * newest (whose device work may still be running when the application does not synchronize).
     */
    @Override
    public void flush() throws IOException {
        if (pending.size() >= 2) {
            while (pending.size() > 1) {
                write(pending.remove(0));
            }
            prune();
            file.flush();
        } else if (activities.size() > PRUNE_ABOVE || sampledBusy.heldLaunches() > PRUNE_LAUNCHES_ABOVE) {
            prune();
        }
    }

    @Override
    public void close() throws IOException {
        for (Marker m : pending) {
            write(m);
        }
        pending.clear();
        file.close();
        if (sampling != null && sampling) {
            logRunEstimates();
        }
    }

    /**
     * Forgets activities and dependencies no window can need any more: those ending before the oldest
     * window still to be written and before the iteration still open; with neither, those older than
     * {@link #UNCLAIMED_NS} (an iteration-method call reports its start only when it returns).
     */
    private void prune() {
        long keepFrom = newestEnd - UNCLAIMED_NS;
        if (!pending.isEmpty()) {
            keepFrom = Math.min(keepFrom, pending.get(0).startNs());
        }
        long open = openIteration.getAsLong();
        if (open >= 0) {
            keepFrom = Math.min(keepFrom, open);
        }
        // From the oldest end: a full pass per drain cycle over the up to 30 s of activities kept without
        // markers (millions at 130 000 launches/s) made the drain thread fall behind. Activities arrive
        // nearly in end order, so one that ended early behind a longer one is dropped a little later.
        while (!activities.isEmpty()) {
            pruneVisits++;
            if (activities.peekFirst().end >= keepFrom) {
                break;
            }
            activities.pollFirst();
        }
        long k = keepFrom;
        dependencies.removeIf(d -> d.waitNs() < k);
        sampledBusy.forgetBefore(keepFrom);
    }

    /** Activities looked at while pruning, all passes together: each once when let go, plus one per pass. */
    long pruneVisits() {
        return pruneVisits;
    }

    private void write(Marker w) throws IOException {
        long from = w.startNs();
        long to = w.endNs();
        List<Act> in = new ArrayList<>();
        for (Act x : activities) {
            if (x.end > from && x.start < to) {
                in.add(x);
            }
        }
        boolean haveDevice = !"none".equals(deviceSource.get());
        try (JsonGenerator j = JSON.createGenerator(file)) {
            j.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            j.writeStartObject();
            j.writeNumberField("rank", rank);
            j.writeNumberField("world_size", worldSize);
            j.writeNumberField("epoch", 0);
            j.writeNumberField("step", w.step());
            j.writeNumberField("global_step", w.step());
            j.writeNullField("loss");
            j.writeNullField("grad_norm");
            j.writeNullField("lr");
            j.writeObjectFieldStart("profile");
            j.writeNumberField("index", w.step());
            j.writeNumberField("total_ms", ms(to - from));
            writeRanges(j, in, from, to);
            writeMarkers(j, from, to);
            DeviceMetrics dm = haveDevice ? metrics(in, from, to) : null;
            writeOverlap(j, dm, in, from, to);
            writeAorta(j, dm == null ? null : dm.overlap(), w, in.size());
            j.writeEndObject();
            j.writeEndObject();
        }
        file.write('\n');
    }

    private void writeRanges(JsonGenerator j, List<Act> in, long from, long to) throws IOException {
        j.writeArrayFieldStart("ranges");
        int n = 0;
        for (Act x : in) {
            if (n++ == maxRanges) {
                break;
            }
            j.writeStartObject();
            j.writeStringField("stream", x.stream);
            j.writeStringField("tag", x.a.name());
            j.writeNumberField("start_ms", ms(Math.max(x.start, from) - from));
            j.writeNumberField("end_ms", ms(Math.min(x.end, to) - from));
            j.writeNumberField("duration_ms", ms(Math.min(x.end, to) - Math.max(x.start, from)));
            j.writeObjectFieldStart("metadata");
            j.writeStringField("kind", x.a.kind().name());
            j.writeNumberField("correlation", x.a.correlationId());
            j.writeEndObject();
            j.writeEndObject();
        }
        j.writeEndArray();
    }

    /** Event dependencies in the window: where a stream waited for another (record → wait). */
    private void writeMarkers(JsonGenerator j, long from, long to) throws IOException {
        j.writeArrayFieldStart("markers");
        for (Dependency d : dependencies) {
            if (d.waitNs() >= from && d.waitNs() < to) {
                j.writeStartObject();
                j.writeStringField("stream", label(d.waitStream()));
                j.writeStringField("tag", "wait:" + label(d.recordStream()));
                j.writeNumberField("time_ms", ms(d.waitNs() - from));
                j.writeObjectFieldStart("metadata");
                j.writeNumberField("event", d.event());
                j.writeEndObject();
                j.writeEndObject();
            }
        }
        j.writeEndArray();
    }

    private static DeviceMetrics metrics(List<Act> in, long from, long to) {
        int n = in.size();
        Unions c = new Unions(n);
        Unions m = new Unions(n);
        Unions y = new Unions(n);
        Unions ar = new Unions(n);
        Unions rs = new Unions(n);
        for (Act x : in) {
            switch (x.clazz) {
                case COMPUTE -> c.add(x.start, x.end);
                case MEMORY -> y.add(x.start, x.end);
                case COMMUNICATION -> {
                    m.add(x.start, x.end);
                    if (ALL_REDUCE.matcher(x.a.name()).find()) {
                        ar.add(x.start, x.end);
                    } else if (REDUCE_SCATTER.matcher(x.a.name()).find()) {
                        rs.add(x.start, x.end);
                    }
                }
                case OTHER -> {
                    // in no class (docs/metrics.md#classification)
                }
            }
        }
        IntervalSet compute = c.build(from, to);
        return new DeviceMetrics(OverlapMetrics.of(to - from, compute, m.build(from, to), y.build(from, to)),
                compute.intersect(ar.build(from, to)).length(), compute.intersect(rs.build(from, to)).length());
    }

    /** Intervals gathered into primitive arrays, then their union clipped to the window. */
    private static final class Unions {
        private final long[] starts;
        private final long[] ends;
        private int n;

        Unions(int capacity) {
            starts = new long[capacity];
            ends = new long[capacity];
        }

        void add(long start, long end) {
            starts[n] = start;
            ends[n++] = end;
        }

        IntervalSet build(long from, long to) {
            return IntervalSet.union(starts, ends, n).clip(from, to);
        }
    }

    private void writeOverlap(JsonGenerator j, DeviceMetrics dm, List<Act> in, long from, long to) throws IOException {
        j.writeObjectFieldStart("overlap");
        Map<String, Unions> byStream = new TreeMap<>();
        for (Act x : in) {
            if (x.clazz != ActivityClass.OTHER) {
                byStream.computeIfAbsent(x.stream, k -> new Unions(in.size())).add(x.start, x.end);
            }
        }
        Map<String, IntervalSet> unions = new LinkedHashMap<>();
        byStream.forEach((stream, u) -> unions.put(stream, u.build(from, to)));
        j.writeObjectFieldStart("per_stream_ms");
        Map<String, StreamUtilization> utilization = new LinkedHashMap<>();
        for (Map.Entry<String, IntervalSet> e : unions.entrySet()) {
            StreamUtilization u = StreamUtilization.of(e.getValue(), from, to);
            utilization.put(e.getKey(), u);
            j.writeNumberField(e.getKey(), ms(u.busyNs()));
        }
        j.writeEndObject();
        j.writeObjectFieldStart("overlap_ms");
        if (dm == null) {
            j.writeNullField("compute_allreduce");
            j.writeNullField("compute_reducescatter");
            j.writeNullField("compute_comm");
            j.writeNullField("idle");
        } else {
            j.writeNumberField("compute_allreduce", ms(dm.computeAllReduce()));
            j.writeNumberField("compute_reducescatter", ms(dm.computeReduceScatter()));
            j.writeNumberField("compute_comm", ms(dm.overlap().overlapNs()));
            j.writeNumberField("idle", ms(dm.overlap().idleNs()));
        }
        j.writeEndObject();
        writeSegments(j, unions, from, to);
        j.writeObjectFieldStart("utilization");
        for (Map.Entry<String, StreamUtilization> e : utilization.entrySet()) {
            j.writeNumberField(e.getKey(), e.getValue().utilization());
        }
        j.writeEndObject();
        j.writeEndObject();
    }

    /** Maximal stretches of the window during which the same set of streams is busy (capped like ranges). */
    private void writeSegments(JsonGenerator j, Map<String, IntervalSet> unions, long from, long to) throws IOException {
        TreeSet<Long> cuts = new TreeSet<>();
        cuts.add(from);
        cuts.add(to);
        for (IntervalSet u : unions.values()) {
            for (int i = 0; i < u.size(); i++) {
                cuts.add(u.start(i));
                cuts.add(u.end(i));
            }
        }
        j.writeArrayFieldStart("active_segments");
        Map<String, Integer> cursors = new HashMap<>();
        long segStart = from;
        List<String> segActive = null;
        int written = 0;
        Long prev = null;
        for (long cut : cuts) {
            if (prev != null) {
                List<String> active = new ArrayList<>();
                for (Map.Entry<String, IntervalSet> e : unions.entrySet()) {
                    IntervalSet u = e.getValue();
                    int i = cursors.getOrDefault(e.getKey(), 0);
                    while (i < u.size() && u.end(i) <= prev) {
                        i++;
                    }
                    cursors.put(e.getKey(), i);
                    if (i < u.size() && u.start(i) <= prev && u.end(i) >= cut) {
                        active.add(e.getKey());
                    }
                }
                if (segActive != null && !active.equals(segActive)) {
                    if (written++ < maxRanges) {
                        segment(j, segStart - from, prev - from, segActive);
                    }
                    segStart = prev;
                }
                segActive = active;
            }
            prev = cut;
        }
        if (segActive != null && written < maxRanges) {
            segment(j, segStart - from, to - from, segActive);
        }
        j.writeEndArray();
    }

    private static void segment(JsonGenerator j, long start, long end, List<String> active) throws IOException {
        j.writeStartObject();
        j.writeNumberField("start_ms", ms(start));
        j.writeNumberField("end_ms", ms(end));
        j.writeArrayFieldStart("active_streams");
        for (String s : active) {
            j.writeString(s);
        }
        j.writeEndArray();
        j.writeEndObject();
    }

    /** Our additions, named as in docs/metrics.md, so that nothing has to be re-derived from the seed's fields. */
    private void writeAorta(JsonGenerator j, OverlapMetrics wm, Marker w, int activityCount) throws IOException {
        j.writeObjectFieldStart("aorta");
        j.writeStringField("device_activity", deviceSource.get());
        j.writeStringField("clock", ClockDomain.HOST_MONOTONIC.tag());
        j.writeNumberField("window_start_ns", w.startNs());
        j.writeNumberField("window_end_ns", w.endNs());
        j.writeNumberField("activities", activityCount);
        if (activityCount > maxRanges) {
            j.writeNumberField("ranges_truncated", activityCount - maxRanges);
        }
        if (wm != null) {
            j.writeNumberField("compute_ms", ms(wm.computeNs()));
            j.writeNumberField("comm_ms", ms(wm.commNs()));
            j.writeNumberField("memcpy_ms", ms(wm.memoryNs()));
            j.writeNumberField("busy_ms", ms(wm.busyNs()));
            j.writeNumberField("idle_ms", ms(wm.idleNs()));
            j.writeNumberField("overlap_ms", ms(wm.overlapNs()));
            j.writeNumberField("exposed_comm_ms", ms(wm.exposedCommNs()));
            j.writeNumberField("exposed_memcpy_ms", ms(wm.exposedMemcpyNs()));
            nullable(j, "comm_overlap_pct", wm.commOverlapPct());
            nullable(j, "aorta_overlap_ratio", wm.aortaOverlapRatio());
        }
        j.writeNumberField("dropped_records", dropped.getAsLong());
        long lostDevice = droppedDevice.getAsLong();
        if (lostDevice > 0) {
            j.writeNumberField("dropped_device_records", lostDevice);
        }
        if (unmappable > 0) {
            j.writeNumberField("activities_without_clock_anchor", unmappable);
        }
        if (sampling()) {
            writeEstimates(j, sampledBusy.window(w.startNs(), w.endNs()));
        }
        j.writeEndObject();
    }

    /** docs/metrics.md#sampled-stream-busy-time: estimate and 95% interval per stream, null where unknown. */
    private void writeEstimates(JsonGenerator j, Map<Long, SampledStreamBusy.Estimate> estimates) throws IOException {
        j.writeObjectFieldStart("stream_busy_estimated");
        for (Map.Entry<Long, SampledStreamBusy.Estimate> e : estimates.entrySet()) {
            SampledBusyTime b = e.getValue().busy();
            j.writeObjectFieldStart(streamLabels.computeIfAbsent(e.getKey(), this::label));
            j.writeNumberField("launches", e.getValue().launches());
            j.writeNumberField("sampled", b == null ? 0 : b.sampled());
            if (b == null) {
                j.writeNullField("busy_ms");
            } else {
                j.writeNumberField("busy_ms", b.busyNs() / 1e6);
            }
            if (b == null || !b.hasInterval()) {
                j.writeNullField("ci95_low_ms");
                j.writeNullField("ci95_high_ms");
            } else {
                j.writeNumberField("ci95_low_ms", b.lowNs() / 1e6);
                j.writeNumberField("ci95_high_ms", b.highNs() / 1e6);
            }
            j.writeEndObject();
        }
        j.writeEndObject();
    }

    /** One line per stream (the busiest {@link #SUMMARY_STREAMS}) with the whole run's estimate. */
    private void logRunEstimates() {
        Map<Long, SampledStreamBusy.Estimate> run = sampledBusy.run();
        List<Map.Entry<Long, SampledStreamBusy.Estimate>> byBusy = new ArrayList<>(run.entrySet());
        byBusy.sort((a, b) -> Double.compare(busyOf(b.getValue()), busyOf(a.getValue())));
        int shown = 0;
        for (Map.Entry<Long, SampledStreamBusy.Estimate> e : byBusy) {
            if (shown++ == SUMMARY_STREAMS) {
                AgentLog.info("stream busy time estimated: " + (byBusy.size() - SUMMARY_STREAMS)
                        + " more streams in the metrics file's aorta.stream_busy_estimated");
                break;
            }
            AgentLog.info(estimateLine(streamLabels.computeIfAbsent(e.getKey(), this::label), e.getValue()));
        }
    }

    private static double busyOf(SampledStreamBusy.Estimate e) {
        return e.busy() == null ? -1 : e.busy().busyNs();
    }

    /** "stream S busy 12.345 ms estimated (95% interval 12.000 to 12.700 ms) from 130 sampled of 13000 kernel launches". */
    static String estimateLine(String stream, SampledStreamBusy.Estimate e) {
        SampledBusyTime b = e.busy();
        if (b == null) {
            return "stream " + stream + " busy time unknown: none of its " + e.launches() + " kernel launches was sampled";
        }
        String interval = b.hasInterval()
                ? String.format(Locale.ROOT, "95%% interval %.3f to %.3f ms", b.lowNs() / 1e6, b.highNs() / 1e6)
                : "no interval from a single sample";
        return String.format(Locale.ROOT, "stream %s busy %.3f ms estimated (%s) from %d sampled of %d kernel"
                + " launches", stream, b.busyNs() / 1e6, interval, b.sampled(), b.launches());
    }

    private static void nullable(JsonGenerator j, String field, Double v) throws IOException {
        if (v == null) {
            j.writeNullField(field);
        } else {
            j.writeNumberField(field, v);
        }
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }
}
