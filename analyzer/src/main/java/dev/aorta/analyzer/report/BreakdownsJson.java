package dev.aorta.analyzer.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.metrics.Breakdowns;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.CopyBandwidth;
import dev.aorta.core.metric.CriticalPath;
import dev.aorta.core.metric.GemmThroughput;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.KernelLaunchStatistics;
import dev.aorta.core.metric.SampleStats;

import java.io.IOException;

/** A window's {@link Breakdowns} as JSON fields, in analyze's JSON and report's summary.json (names and units: docs/metrics.md), in ns unless named otherwise. */
public final class BreakdownsJson {
    private BreakdownsJson() {
    }

    public static void write(JsonGenerator g, Breakdowns b) throws IOException {
        g.writeArrayFieldStart("idle_time");
        for (Breakdowns.StreamIdle s : b.idle()) {
            IdleTimeBreakdown i = s.breakdown();
            g.writeStartObject();
            g.writeNumberField("stream", i.stream());
            g.writeStringField("label", s.label());
            g.writeNumberField("idle_ns", i.idleNs());
            g.writeNumberField("host_wait_ns", i.hostWaitNs());
            g.writeNumberField("kernel_wait_ns", i.kernelWaitNs());
            g.writeNumberField("other_ns", i.otherNs());
            g.writeNumberField("host_wait_gaps", i.hostWaitGaps());
            g.writeNumberField("kernel_wait_gaps", i.kernelWaitGaps());
            g.writeNumberField("other_gaps", i.otherGaps());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeNumberField("api_call_names", b.apiCallNames());
        g.writeArrayFieldStart("api_calls");
        for (ApiStatistics.Entry e : b.apiCalls()) {
            g.writeStartObject();
            g.writeStringField("name", e.name());
            g.writeNumberField("count", e.count());
            g.writeNumberField("total_ns", e.totalNs());
            stats(g, "duration", e.durationNs());
            g.writeNumberField("share", e.share());
            g.writeEndObject();
        }
        g.writeEndArray();
        KernelLaunchStatistics k = b.launches();
        g.writeObjectFieldStart("kernel_launches");
        g.writeNumberField("count", k.launches());
        stats(g, "cpu_duration", k.cpuDurationNs());
        stats(g, "gpu_duration", k.gpuDurationNs());
        stats(g, "launch_delay", k.launchDelayNs());
        g.writeNumberField("short_kernels", k.shortKernels());
        g.writeNumberField("runtime_outliers", k.runtimeOutliers());
        g.writeNumberField("runtime_cutoff_ns", KernelLaunchStatistics.DEFAULT_RUNTIME_CUTOFF_NS);
        g.writeNumberField("launch_delay_outliers", k.launchDelayOutliers());
        g.writeNumberField("launch_delay_cutoff_ns", KernelLaunchStatistics.DEFAULT_LAUNCH_DELAY_CUTOFF_NS);
        g.writeEndObject();
        g.writeArrayFieldStart("copy_bandwidth");
        for (CopyBandwidth c : b.copies()) {
            g.writeStartObject();
            g.writeStringField("direction", c.direction().label());
            g.writeNumberField("copies", c.copies());
            g.writeNumberField("bytes", c.bytes());
            g.writeNumberField("duration_ns", c.durationNs());
            if (c.gbps() == null) {
                g.writeNullField("gbps");
            } else {
                g.writeNumberField("gbps", c.gbps());
            }
            g.writeNumberField("per_copy_gbps_p50", c.perCopyGbps().p50());
            g.writeNumberField("per_copy_gbps_max", c.perCopyGbps().max());
            g.writeNumberField("unsized", c.unsized());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("collectives");
        for (CollectiveBandwidth c : b.collectives()) {
            g.writeStartObject();
            g.writeStringField("collective", c.kind().label());
            nullableLong(g, "message_bytes", c.messageBytes());
            nullableLong(g, "group_size", c.groupSize());
            g.writeNumberField("count", c.count());
            g.writeNumberField("total_ns", c.totalNs());
            stats(g, "duration", c.durationNs());
            nullable(g, "algbw_gbps", c.algbwGbps());
            nullable(g, "busbw_gbps", c.busbwGbps());
            g.writeEndObject();
        }
        g.writeEndArray();
        if (b.criticalPath() == null) {
            g.writeNullField("critical_path");
        } else {
            CriticalPath p = b.criticalPath();
            g.writeObjectFieldStart("critical_path");
            g.writeNumberField("start_ns", p.startNs());
            g.writeNumberField("end_ns", p.endNs());
            g.writeNumberField("length_ns", p.lengthNs());
            g.writeNumberField("host_ns", p.hostNs());
            g.writeNumberField("device_ns", p.deviceNs());
            g.writeNumberField("launch_ns", p.launchNs());
            g.writeNumberField("host_calls", p.hostCalls());
            g.writeNumberField("device_activities", p.deviceActivities());
            g.writeEndObject();
        }
        g.writeArrayFieldStart("gemms");
        for (GemmThroughput e : b.gemms()) {
            g.writeStartObject();
            g.writeNumberField("m", e.shape().m());
            g.writeNumberField("n", e.shape().n());
            g.writeNumberField("k", e.shape().k());
            g.writeNumberField("batch", e.shape().batch());
            g.writeStringField("dtype", e.shape().dtype());
            g.writeNumberField("ops", e.ops());
            g.writeNumberField("flops_per_op", e.flopsPerOp());
            g.writeNumberField("device_ns", e.deviceNs());
            stats(g, "per_op", e.perOpNs());
            nullable(g, "tflops", e.tflops());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** An undefined value is null (docs/metrics.md), never a number that could be read as measured. */
    public static void nullable(JsonGenerator g, String field, Double v) throws IOException {
        if (v == null) {
            g.writeNullField(field);
        } else {
            g.writeNumberField(field, v);
        }
    }

    /** A size the trace does not give ({@link CollectiveBandwidth#UNKNOWN}) is null. */
    private static void nullableLong(JsonGenerator g, String field, long v) throws IOException {
        if (v < 0) {
            g.writeNullField(field);
        } else {
            g.writeNumberField(field, v);
        }
    }

    /** {@code <prefix>_mean_ns}, {@code _p50_ns}, {@code _p95_ns}, {@code _max_ns}: 0 with a count of 0. */
    private static void stats(JsonGenerator g, String prefix, SampleStats s) throws IOException {
        g.writeNumberField(prefix + "_mean_ns", s.mean());
        g.writeNumberField(prefix + "_p50_ns", s.p50());
        g.writeNumberField(prefix + "_p95_ns", s.p95());
        g.writeNumberField(prefix + "_max_ns", s.max());
    }
}
