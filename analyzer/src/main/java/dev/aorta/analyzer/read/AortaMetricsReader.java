package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * AORTA's trainer log {@code rank_<r>_metrics.jsonl} (docs/trace-formats.md): one object per step with
 * {@code rank, world_size, epoch, step, global_step, loss, grad_norm, lr} and
 * {@code profile{index, total_ms, ranges[{stream, tag, start_ms, end_ms, ...}], markers[], overlap{...}}}.
 *
 * <p>AORTA times its ranges with CUDA events relative to the start of each iteration and records no absolute
 * time, so iterations are laid end to end on a synthetic timeline (tagged {@code session-relative}): iteration k
 * starts where k−1 ended. Each step becomes an ITERATION marker ({@code step = global_step}); each range an
 * activity on a stream named by AORTA's stream label (hashed to a number): {@code allreduce},
 * {@code reducescatter} (and any label containing "comm", "nccl" or "rccl") → COLLECTIVE, the rest → KERNEL, so the
 * overlap metrics (docs/metrics.md) computed from them are comparable with AORTA's own {@code overlap_ms.compute_comm}.
 */
public final class AortaMetricsReader implements TraceReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final ClockDomain CLOCK = ClockDomain.SESSION_RELATIVE;

    @Override
    public String format() {
        return "aorta-metrics-jsonl";
    }

    @Override
    public boolean accepts(TraceSource source) {
        String line = source.firstLine();
        return line.startsWith("{") && line.contains("\"global_step\"") && line.contains("\"profile\"");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        long timelineNs = 0;
        long lineNumber = 0;
        boolean rankDeclared = false;
        java.util.Set<String> streamsSeen = new java.util.HashSet<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(source.open(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                Step step = new Step();
                try (JsonParser p = JSON.createParser(line)) {
                    if (p.nextToken() != JsonToken.START_OBJECT) {
                        throw new IOException("not a JSON object");
                    }
                    readStep(p, step, timelineNs);
                } catch (IOException | RuntimeException e) {
                    sink.malformed(lineNumber, e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""));
                    continue;
                }
                if (!rankDeclared && step.rank >= 0) {
                    sink.declaredRank(step.rank, step.worldSize);
                    rankDeclared = true;
                }
                long totalNs = Math.round(step.totalMs * 1e6);
                sink.marker(new Marker(Marker.Kind.ITERATION, "step " + step.globalStep, TraceSink.UNKNOWN_RANK,
                        step.globalStep, timelineNs, timelineNs + totalNs, CLOCK));
                step.ranges.forEach(sink::activity);
                for (String name : step.streams) {
                    if (streamsSeen.add(name)) {
                        sink.stream(new StreamInfo(streamId(name), 0, 0, 0, name));
                    }
                }
                timelineNs += totalNs;
            }
        } catch (java.io.EOFException e) {
            sink.warning(PartialReadWarning.of(source, e, "after line " + lineNumber, "the lines before it"));
        }
    }

    private static final class Step {
        int rank = -1;
        int worldSize;
        long globalStep = -1;
        double totalMs;
        final java.util.List<DeviceActivity> ranges = new java.util.ArrayList<>();
        final java.util.Set<String> streams = new java.util.LinkedHashSet<>();
    }

    private static void readStep(JsonParser p, Step step, long originNs) throws IOException {
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "rank" -> step.rank = p.getIntValue();
                case "world_size" -> step.worldSize = p.getIntValue();
                case "global_step" -> step.globalStep = p.getLongValue();
                case "profile" -> readProfile(p, v, step, originNs);
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        if (field == null && p.currentToken() != JsonToken.END_OBJECT) {
            throw new IOException("incomplete JSON object");
        }
        if (step.globalStep < 0) {
            throw new IOException("missing \"global_step\"");
        }
    }

    private static void readProfile(JsonParser p, JsonToken v, Step step, long originNs) throws IOException {
        if (v != JsonToken.START_OBJECT) {
            throw new IOException("\"profile\" is not an object");
        }
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            if ("total_ms".equals(field)) {
                step.totalMs = p.getDoubleValue();
            } else if ("ranges".equals(field) && t == JsonToken.START_ARRAY) {
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    readRange(p, step, originNs);
                }
            } else if (t.isStructStart()) {
                p.skipChildren();
            }
        }
    }

    private static void readRange(JsonParser p, Step step, long originNs) throws IOException {
        String stream = "compute";
        String tag = null;
        double startMs = 0;
        double endMs = 0;
        String field;
        while ((field = p.nextFieldName()) != null) {
            p.nextToken();
            switch (field) {
                case "stream" -> stream = p.getText();
                case "tag" -> tag = p.getText();
                case "start_ms" -> startMs = p.getDoubleValue();
                case "end_ms" -> endMs = p.getDoubleValue();
                default -> p.skipChildren();  // does nothing unless on an object or array start
            }
        }
        long start = originNs + Math.round(startMs * 1e6);
        long end = Math.max(start, originNs + Math.round(endMs * 1e6));
        step.streams.add(stream);
        String s = stream.toLowerCase(Locale.ROOT);
        boolean comm = s.equals("allreduce") || s.equals("reducescatter") || s.contains("comm") || s.contains("nccl")
                || s.contains("rccl");
        step.ranges.add(new DeviceActivity(comm ? ActivityKind.COLLECTIVE : ActivityKind.KERNEL,
                tag == null ? stream : tag, TraceSink.UNKNOWN_RANK, 0, streamId(stream), start, end, 0,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, CLOCK));
    }

    /** AORTA names its streams; the event model numbers them. A stable positive number per name. */
    static long streamId(String name) {
        return name.hashCode() & 0x7fffffffL;
    }
}
