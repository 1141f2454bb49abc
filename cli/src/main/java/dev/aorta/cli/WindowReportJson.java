package dev.aorta.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.metrics.Analysis;
import dev.aorta.analyzer.metrics.AnalysisResult;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.report.BreakdownsJson;
import dev.aorta.core.metric.SampleStats;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.analyzer.metrics.LabelledStreamUtilization;
import dev.aorta.analyzer.metrics.QueueLength;
import dev.aorta.analyzer.metrics.StepCoverage;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowReport;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/** Writes a {@link WindowReport} as JSON: the overlap names (docs/metrics.md) first, details (streams, kernels, latencies) on request. */
public final class WindowReportJson {
    /** Enough to plot queue length over a window without making a line megabytes long. */
    private static final int QUEUE_LENGTH_POINTS = 500;
    /** What the queue switch estimate is, for every place that prints it (text and JSON say the same). */
    public static final String SWITCH_OVERHEAD_MEANING = "an upper bound: mean idle gap between consecutive kernels"
            + " on different streams minus that on one stream, so any idle time between unrelated kernels counts;"
            + " not a measured hardware queue switch";

    private WindowReportJson() {
    }

    public static void write(JsonGenerator g, WindowReport r, boolean details) throws IOException {
        write(g, r, null, details);
    }

    /** @param steps the rank's step coverage, written with each step window; null when not measured by steps */
    public static void write(JsonGenerator g, WindowReport r, StepCoverage steps, boolean details) throws IOException {
        g.writeStartObject();
        g.writeNumberField("rank", r.rank());
        g.writeStringField("window", r.window().label());
        g.writeStringField("source", r.source());
        writeOverlap(g, r.overlap());
        writeAnalyses(g, r.analyses());
        if (details) {
            g.writeNumberField("window_start_ns", r.window().startNs());
            if (r.window().kind() == Window.Kind.STEP) {
                g.writeStringField("window_basis", r.window().basis().text());
                g.writeNumberField("host_start_ns", r.window().hostStartNs());
                g.writeNumberField("host_end_ns", r.window().hostEndNs());
                if (steps != null) {
                    g.writeNumberField("rank_device_busy_ns", steps.busyNs());
                    g.writeNumberField("rank_device_ns_in_no_step", steps.inNoStepNs());
                }
            }
            g.writeArrayFieldStart("streams");
            for (LabelledStreamUtilization s : r.streams()) {
                g.writeStartObject();
                g.writeNumberField("stream", s.stream());
                g.writeStringField("label", s.label());
                g.writeNumberField("busy_ns", s.busyNs());
                g.writeNumberField("utilization", s.utilization());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("kernels");
            for (KernelBreakdown.Entry k : r.kernels()) {
                g.writeStartObject();
                g.writeStringField("class", k.activityClass().name().toLowerCase(Locale.ROOT));
                g.writeStringField("name", k.name());
                g.writeNumberField("count", k.count());
                g.writeNumberField("total_ns", k.totalNs());
                g.writeNumberField("mean_ns", k.meanNs());
                g.writeNumberField("min_ns", k.minNs());
                g.writeNumberField("max_ns", k.maxNs());
                g.writeNumberField("share_of_class", k.shareOfClass());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("queue_switch");
            g.writeNumberField("intra_gaps", r.queueSwitch().intraGaps());
            g.writeNumberField("mean_intra_gap_ns", r.queueSwitch().intraGapsNs().mean());
            g.writeNumberField("inter_gaps", r.queueSwitch().interGaps());
            g.writeNumberField("mean_inter_gap_ns", r.queueSwitch().interGapsNs().mean());
            nullable(g, "estimated_switch_overhead_ns", r.queueSwitch().estimatedSwitchOverheadNs());
            g.writeNumberField("stream_switches_measured", r.queueSwitch().interGaps());
            g.writeNumberField("gaps_qualified", r.queueSwitch().intraGaps() + r.queueSwitch().interGaps());
            g.writeStringField("estimated_switch_overhead_meaning", SWITCH_OVERHEAD_MEANING);
            g.writeEndObject();
            g.writeObjectFieldStart("dispatch_latency");
            latency(g, "same_stream", r.dispatch().sameStream());
            latency(g, "cross_stream", r.dispatch().crossStream());
            latency(g, "from_enqueue", r.dispatch().fromEnqueue());
            g.writeEndObject();
            latency(g, "launch_latency", r.launch().latency());
            g.writeObjectFieldStart("queue_length");
            g.writeStringField("basis", r.queueLength().basis());
            g.writeNumberField("max", r.queueLength().max());
            g.writeNumberField("time_weighted_mean", r.queueLength().timeWeightedMean());
            g.writeArrayFieldStart("series");
            for (long[] point : r.queueLength().series(QUEUE_LENGTH_POINTS)) {
                g.writeStartArray();
                g.writeNumber(point[0]);
                g.writeNumber(point[1]);
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeNumberField("pending_launch_limit", QueueLength.PENDING_LAUNCH_LIMIT);
            g.writeArrayFieldStart("streams");
            for (QueueLength.StreamQueue q : r.queueLength().streams()) {
                g.writeStartObject();
                g.writeNumberField("stream", q.stream());
                g.writeStringField("label", q.label());
                g.writeNumberField("max", q.max());
                g.writeNumberField("time_weighted_mean", q.timeWeightedMean());
                g.writeNumberField("blocked_launches", q.blockedCalls());
                g.writeNumberField("blocked_launch_ns", q.blockedNs());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            BreakdownsJson.write(g, r.breakdowns());
            if (r.jvm() != null) {
                g.writeObjectFieldStart("jvm");
                g.writeNumberField("idle_gaps", r.jvm().idleGaps());
                g.writeNumberField("gc_pauses", r.jvm().gcPauses());
                g.writeNumberField("idle_gaps_with_gc", r.jvm().gapsWithGc());
                g.writeNumberField("idle_during_gc_ns", r.jvm().idleDuringGcNs());
                g.writeNumberField("safepoints", r.jvm().safepoints());
                g.writeNumberField("idle_gaps_with_safepoint", r.jvm().gapsWithSafepoint());
                g.writeNumberField("idle_during_safepoint_ns", r.jvm().idleDuringSafepointNs());
                g.writeEndObject();
            }
        }
        g.writeEndObject();
    }

    public static void writeOverlap(JsonGenerator g, OverlapMetrics m) throws IOException {
        g.writeNumberField("window_ns", m.windowNs());
        g.writeNumberField("busy_ns", m.busyNs());
        g.writeNumberField("idle_ns", m.idleNs());
        g.writeNumberField("compute_ns", m.computeNs());
        g.writeNumberField("comm_ns", m.commNs());
        g.writeNumberField("overlap_ns", m.overlapNs());
        g.writeNumberField("exposed_comm_ns", m.exposedCommNs());
        g.writeNumberField("exposed_memcpy_ns", m.exposedMemcpyNs());
        nullable(g, "comm_overlap_pct", m.commOverlapPct());
        nullable(g, "aorta_overlap_ratio", m.aortaOverlapRatio());
    }

    /** The plugin analyses' values (always, like the overlap names: they are what the plugin is installed for). */
    private static void writeAnalyses(JsonGenerator g, List<AnalysisResult> analyses) throws IOException {
        if (analyses.isEmpty()) {
            return;
        }
        g.writeObjectFieldStart("analyses");
        for (AnalysisResult a : analyses) {
            g.writeObjectFieldStart(a.analysis());
            for (Analysis.Value v : a.values()) {
                if (Double.isNaN(v.value()) || Double.isInfinite(v.value())) {
                    g.writeNullField(v.name());
                } else {
                    g.writeNumberField(v.name(), v.value());
                }
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** An undefined metric is JSON null (docs/metrics.md), never a number that could be read as measured. */
    private static void nullable(JsonGenerator g, String field, Double v) throws IOException {
        if (v == null) {
            g.writeNullField(field);
        } else {
            g.writeNumberField(field, v);
        }
    }

    private static void latency(JsonGenerator g, String field, SampleStats s) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("count", s.count());
        g.writeNumberField("mean_ns", s.mean());
        g.writeNumberField("p50_ns", s.p50());
        g.writeNumberField("p95_ns", s.p95());
        g.writeNumberField("p99_ns", s.p99());
        g.writeNumberField("max_ns", (long) s.max());  // a sample of integer ns
        g.writeEndObject();
    }
}
