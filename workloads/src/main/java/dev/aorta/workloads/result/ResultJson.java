package dev.aorta.workloads.result;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.core.io.AtomicFiles;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.metrics.ConvoyEffect;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.KernelBreakdown;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.core.metric.SampleStats;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The result file of a run (schema {@value #RUN_SCHEMA}) and of a sweep ({@value #SWEEP_SCHEMA}); the name of
 * {@code aorta train}'s ({@value #TRAIN_SCHEMA}, written by the cli, read by {@code aorta overhead}).
 * AORTA's keys keep their names and meaning; ours are added beside them. Documented in
 * workloads/README-section.md.
 */
public final class ResultJson {
    public static final String RUN_SCHEMA = "aorta.run/1";
    public static final String SWEEP_SCHEMA = "aorta.sweep/1";
    public static final String TRAIN_SCHEMA = "aorta.train/1";
    private static final double GB = 1024.0 * 1024 * 1024;

    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultJson() {
    }

    public static ObjectNode toJson(RunResult r) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("schema", RUN_SCHEMA);
        root.put("workload_name", r.workloadName());
        root.put("timestamp", r.timestamp().toString());
        root.put("throughput", r.throughput().value());
        root.put("throughput_unit", r.throughput().unit());
        if (r.latencyMs() == null) {
            root.putNull("latency_ms");
            root.put("latency_note", "per-iteration latency is not defined in sync mode none: "
                    + "nothing waits between iterations; see throughput and host_enqueue");
        } else {
            root.set("latency_ms", stats(r.latencyMs()));
        }
        root.put("total_time_ms", r.totalTimeMs());
        root.put("wall_time_ms", r.wallTimeMs());
        root.put("stream_count", r.options().streams());
        ArrayNode perStream = root.putArray("per_stream_times_ms");
        r.streams().forEach(s -> perStream.add(s.busyMs()));
        ArrayNode iterations = root.putArray("iteration_times_ms");
        for (double v : r.iterationTimesMs()) {
            iterations.add(v);
        }
        root.set("switch_latency", switchLatency(r.kernelTiming().switchOverhead()));
        root.set("memory", memory(r.memory().atEnd()));
        root.put("timing_source", r.kernelTiming().source().label());
        root.put("timing_source_note", r.kernelTiming().sourceNote());
        root.set("host_enqueue", hostEnqueue(r.hostEnqueue()));
        root.set("dispatch_latency", dispatch(r.kernelTiming().dispatchLatency()));
        if (r.kernelTiming().convoy() != null) {
            root.set("convoy", convoy(r.kernelTiming().convoy()));
        }
        root.set("kernels", kernels(r.kernelTiming()));
        root.set("streams", streams(r.streams()));
        ObjectNode correctness = root.putObject("correctness");
        correctness.put("checked", r.correctness().checked());
        correctness.put("problem", r.correctness().problem());
        if (r.baselineLoop() != null) {
            ObjectNode b = root.putObject("baseline_loop");
            b.put("iterations", r.baselineLoop().iterations());
            b.put("total_time_ms", r.baselineLoop().totalTimeMs());
            b.put("throughput", r.baselineLoop().throughput().value());
            b.put("throughput_unit", r.baselineLoop().throughput().unit());
            b.put("ratio", r.baselineLoop().ratio());
        }
        ObjectNode gpu = root.putObject("gpu_telemetry");
        gpu.set("before", telemetry(r.telemetry().before()));
        gpu.set("after", telemetry(r.telemetry().after()));
        if (!r.workloadResults().isEmpty()) {
            root.set("workload_results", MAPPER.valueToTree(r.workloadResults()));
        }
        ObjectNode metadata = root.putObject("metadata");
        metadata.set("config", config(r.options()));
        metadata.set("device_info", device(r.device()));
        metadata.set("env_vars", MAPPER.valueToTree(r.envVars()));
        metadata.set("workload_config", MAPPER.valueToTree(r.workloadConfig()));
        metadata.put("workload_description", r.workloadDescription());
        return root;
    }

    public static ObjectNode stats(SampleStats s) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("mean", s.mean());
        o.put("p50", s.p50());
        o.put("p95", s.p95());
        o.put("p99", s.p99());
        o.put("min", s.min());
        o.put("max", s.max());
        o.put("std", s.std());
        o.put("count", s.count());
        return o;
    }

    private static JsonNode statsOrNull(SampleStats s) {
        return s == null ? MAPPER.nullNode() : stats(s);
    }

    private static ObjectNode switchLatency(QueueSwitchOverhead s) {
        ObjectNode o = MAPPER.createObjectNode();
        Double estimateNs = s.estimatedSwitchOverheadNs();
        if (estimateNs == null) {
            o.putNull("estimated_switch_overhead_us");
        } else {
            o.put("estimated_switch_overhead_us", estimateNs / 1e3);
        }
        o.set("inter_stream_gaps_us", gaps(s.interGapsNs()));
        o.set("intra_stream_gaps_us", gaps(s.intraGapsNs()));
        o.put("definition", "kernels of each window sorted by end; positive gaps next.start - prev.end, "
                + "inter when the two ran on different streams; overhead = max(0, mean(inter) - mean(intra)), "
                + "null unless there are gaps of both kinds");
        return o;
    }

    private static ObjectNode gaps(SampleStats gapsNs) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("count", gapsNs.count());
        o.put("mean", gapsNs.mean() / 1e3);
        o.put("p50", gapsNs.p50() / 1e3);
        o.put("max", gapsNs.max() / 1e3);
        return o;
    }

    private static ObjectNode memory(MemoryStats m) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("peak_allocated_gb", m.peakAllocatedBytes() / GB);
        o.put("final_allocated_gb", m.allocatedBytes() / GB);
        o.put("peak_reserved_gb", m.peakReservedBytes() / GB);
        o.put("final_reserved_gb", m.reservedBytes() / GB);
        return o;
    }

    private static ObjectNode hostEnqueue(RunResult.HostEnqueue h) {
        ObjectNode o = MAPPER.createObjectNode();
        o.set("per_iteration_ms", stats(h.perIterationMs()));
        o.put("launches_per_iteration", h.launchesPerIteration());
        o.put("launches_per_iteration_min", h.minLaunches());
        o.put("launches_per_iteration_max", h.maxLaunches());
        o.put("us_per_launch", h.usPerLaunch());
        o.put("iterations_per_second", h.iterationsPerSecond());
        o.put("launches_per_second", h.launchesPerSecond());
        return o;
    }

    private static ObjectNode dispatch(DispatchLatency d) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("available", d.measured());
        if (!d.measured()) {
            o.put("reason", RunResult.KernelTiming.DISPATCH_NEEDS_QUEUED);
            return o;
        }
        o.set("same_stream_us", microsOrNull(d.sameStream()));
        o.set("cross_stream_us", microsOrNull(d.crossStream()));
        o.set("from_enqueue_us", microsOrNull(d.fromEnqueue()));
        return o;
    }

    /** ns statistics in µs; null without samples. */
    private static JsonNode microsOrNull(SampleStats ns) {
        return ns.count() == 0 ? MAPPER.nullNode() : stats(ns.scaled(1e-3));
    }

    private static ObjectNode convoy(ConvoyEffect c) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("waiting_role", c.waitingRole());
        o.put("blocking_role", c.blockingRole());
        o.put("available", c.available());
        if (!c.available()) {
            o.put("reason", c.unavailableReason());
            return o;
        }
        o.set("wait_behind_blocking_us", statsOrNull(c.behindBlockingUs()));
        o.set("wait_otherwise_us", statsOrNull(c.otherwiseUs()));
        return o;
    }

    private static ObjectNode kernels(RunResult.KernelTiming k) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("captured_iterations", k.capturedIterations());
        o.put("activity_count", k.activityCount());
        o.put("untimed_launches", k.untimedLaunches());
        o.put("gap_windows", k.perIterationWindows() ? "per_iteration" : "whole_run");
        ArrayNode classes = o.putArray("classes");
        for (KernelBreakdown.Entry c : k.kernelClasses()) {
            ObjectNode n = classes.addObject();
            n.put("name", c.name());
            n.put("count", c.count());
            n.put("total_ms", c.totalNs() / 1e6);
            n.set("duration_us", stats(c.durationNs().scaled(1e-3)));
        }
        return o;
    }

    private static ArrayNode streams(List<RunResult.StreamStats> streams) {
        ArrayNode a = MAPPER.createArrayNode();
        for (RunResult.StreamStats s : streams) {
            ObjectNode n = a.addObject();
            n.put("index", s.index());
            n.put("priority", s.priority());
            n.put("role", s.role());
            n.put("kernel_count", s.kernelCount());
            n.put("busy_ms", s.busyMs());
            n.put("kernel_time_ms", s.kernelTimeMs());
        }
        return a;
    }

    private static ObjectNode config(HarnessOptions o) {
        ObjectNode c = MAPPER.createObjectNode();
        c.put("streams", o.streams());
        c.put("iterations", o.iterations());
        c.put("warmup", o.warmup());
        c.put("sync_mode", o.syncMode().label());
        c.put("device", o.device());
        c.put("priorities", o.priorityMode().label());
        c.put("dtype", o.dtype().label());
        c.put("kernel_timing", o.kernelTiming().label());
        c.put("timing_samples", o.timingSamples());
        c.set("params", MAPPER.valueToTree(o.params()));
        if (o.maxConnections() != null) {
            c.put("max_connections", o.maxConnections());
        } else {
            c.putNull("max_connections");
        }
        return c;
    }

    /** {@code {at, available, values..., missing{key: reason}}} or {@code {at, available: false, reason}}. */
    public static ObjectNode telemetry(GpuTelemetry t) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("at", t.at().toString());
        o.put("available", t.available());
        if (!t.available()) {
            o.put("reason", t.unavailable());
            return o;
        }
        t.values().forEach((k, v) -> o.set(k, MAPPER.valueToTree(v)));
        if (!t.missing().isEmpty()) {
            o.set("missing", MAPPER.valueToTree(t.missing()));
        }
        return o;
    }

    private static ObjectNode device(DeviceInfo d) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("index", d.ordinal());
        o.put("name", d.name());
        o.put("compute_capability", d.computeCapability());
        o.put("async_engines", d.asyncEngines());
        o.put("total_memory_gb", d.totalMemoryBytes() / GB);
        o.put("multiprocessors", d.multiprocessors());
        o.put("driver_version", d.driverVersionText());
        o.put("stream_priority_least", d.priorityRange().least());
        o.put("stream_priority_greatest", d.priorityRange().greatest());
        return o;
    }

    public static void write(Path file, JsonNode json) throws IOException {
        AtomicFiles.write(file, out -> MAPPER.writeValue(out, json));
    }

    /** The file's JSON; a file system error as java.nio reports it, a syntax error as one line naming the place. */
    public static JsonNode read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            JsonNode json = MAPPER.readTree(in);
            if (json == null || json.isMissingNode()) {
                throw new IOException(file + ": empty, expected a JSON result");
            }
            return json;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw new IOException(file + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr())
                    + ": not valid JSON: " + e.getOriginalMessage(), e);
        }
    }
}
