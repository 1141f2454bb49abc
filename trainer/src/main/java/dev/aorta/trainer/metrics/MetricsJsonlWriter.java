package dev.aorta.trainer.metrics;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.telemetry.TelemetrySummary;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes one rank's {@code rank_<rr>_metrics.jsonl} (rr: the rank, two digits or more, as AORTA) in AORTA's schema,
 * so that AORTA's overlap_report and {@code aorta analyze} both read it. Each record is serialised in memory and
 * handed to the kernel as one write of the whole line with its newline: once {@link #write} returns, the line
 * survives the process being killed (not a machine crash: there is no fsync per step). A kill during the write of a
 * long line can still leave its beginning at the end of the file, without a newline; readers take the lines that
 * end in a newline. The file is started afresh at open, so lines of an earlier run into the same directory do not
 * mix with this run's.
 */
public final class MetricsJsonlWriter implements AutoCloseable {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final ObjectMapper METADATA = JsonMapper.builder().build();

    private final Path file;
    private final FileChannel channel;

    private MetricsJsonlWriter(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    public static Path fileFor(Path outputDir, int rank) {
        return outputDir.resolve(String.format(Locale.ROOT, "rank_%02d_metrics.jsonl", rank));
    }

    public static MetricsJsonlWriter open(Path outputDir, int rank) throws IOException {
        Files.createDirectories(outputDir);
        Path file = fileFor(outputDir, rank);
        return new MetricsJsonlWriter(file, FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING));
    }

    public Path file() {
        return file;
    }

    public void write(StepRecord record) throws IOException {
        ByteBuffer line = ByteBuffer.wrap(serialize(record));
        while (line.hasRemaining()) {
            channel.write(line);
        }
    }

    static byte[] serialize(StepRecord r) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.setCodec(METADATA);
            g.writeStartObject();
            g.writeNumberField("rank", r.rank());
            g.writeNumberField("world_size", r.worldSize());
            g.writeNumberField("epoch", r.epoch());
            g.writeNumberField("step", r.step());
            g.writeNumberField("global_step", r.globalStep());
            g.writeNumberField("loss", r.loss());
            g.writeNumberField("grad_norm", r.gradNorm());
            g.writeNumberField("lr", r.lr());
            writeProfile(g, r.profile());
            g.writeNumberField("step_time_ms", r.stepTimeMs());
            g.writeStringField("device_time_source", r.deviceTimeSource().label());
            if (r.telemetry() != null) {
                writeTelemetry(g, r.telemetry());
            }
            g.writeEndObject();
        }
        out.write('\n');
        return out.toByteArray();
    }

    private static void writeProfile(JsonGenerator g, StepProfile p) throws IOException {
        g.writeObjectFieldStart("profile");
        g.writeNumberField("index", p.index());
        g.writeNumberField("total_ms", ms(p.totalNs()));
        g.writeArrayFieldStart("ranges");
        for (DeviceRange r : p.ranges()) {
            g.writeStartObject();
            g.writeStringField("stream", r.stream().label());
            g.writeStringField("tag", r.tag());
            g.writeNumberField("start_ms", ms(r.startNs()));
            g.writeNumberField("end_ms", ms(r.endNs()));
            g.writeNumberField("duration_ms", ms(r.endNs() - r.startNs()));
            writeMetadata(g, r.metadata());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("markers");
        for (DeviceMarker m : p.markers()) {
            g.writeStartObject();
            g.writeStringField("stream", m.stream().label());
            g.writeStringField("tag", m.tag());
            g.writeNumberField("time_ms", ms(m.timeNs()));
            writeMetadata(g, m.metadata());
            g.writeEndObject();
        }
        g.writeEndArray();
        writeOverlap(g, p.overlap());
        g.writeEndObject();
    }

    private static void writeOverlap(JsonGenerator g, StepOverlap o) throws IOException {
        g.writeObjectFieldStart("overlap");
        writeByStream(g, "per_stream_ms", o.perStreamMs());
        g.writeObjectFieldStart("overlap_ms");
        g.writeNumberField("compute_allreduce", o.computeAllreduceMs());
        g.writeNumberField("compute_reducescatter", o.computeReducescatterMs());
        g.writeNumberField("compute_comm", o.computeCommMs());
        g.writeNumberField("idle", o.idleMs());
        g.writeEndObject();
        g.writeArrayFieldStart("active_segments");
        for (StepOverlap.Segment s : o.activeSegments()) {
            g.writeStartObject();
            g.writeNumberField("start_ms", s.startMs());
            g.writeNumberField("end_ms", s.endMs());
            g.writeArrayFieldStart("active_streams");
            for (StreamRole stream : s.activeStreams()) {
                g.writeString(stream.label());
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        writeByStream(g, "utilization", o.utilization());
        g.writeEndObject();
    }

    /** Ours: the NVML summary ({@link TelemetrySummary}); a value the device does not offer is left out. */
    private static void writeTelemetry(JsonGenerator g, TelemetrySummary t) throws IOException {
        g.writeObjectFieldStart("telemetry");
        g.writeNumberField("samples", t.samples());
        optional(g, "sample_age_ms", t.sampleAgeMs());
        optional(g, "sm_clock_mhz", t.smClockMHz());
        optional(g, "memory_clock_mhz", t.memoryClockMHz());
        optional(g, "power_w", t.powerW());
        optional(g, "power_max_w", t.powerMaxW());
        optional(g, "temperature_c", t.temperatureC());
        optional(g, "temperature_max_c", t.temperatureMaxC());
        optional(g, "gpu_utilization_pct", t.gpuUtilPct());
        optional(g, "memory_utilization_pct", t.memoryUtilPct());
        optional(g, "pcie_tx_mb_s", t.pcieTxMBps());
        optional(g, "pcie_rx_mb_s", t.pcieRxMBps());
        g.writeEndObject();
    }

    private static void optional(JsonGenerator g, String name, double value) throws IOException {
        if (!Double.isNaN(value)) {
            g.writeNumberField(name, value);
        }
    }

    private static void writeByStream(JsonGenerator g, String name, Map<StreamRole, Double> values)
            throws IOException {
        g.writeObjectFieldStart(name);
        for (StreamRole s : StreamRole.values()) {
            g.writeNumberField(s.label(), values.getOrDefault(s, 0.0));
        }
        g.writeEndObject();
    }

    private static void writeMetadata(JsonGenerator g, Map<String, Object> metadata) throws IOException {
        g.writeFieldName("metadata");
        g.writeObject(new TreeMap<>(metadata)); // sorted: the same line for the same record
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
