package dev.aorta.analyzer.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.read.TrainerMetricsDirectory;
import dev.aorta.core.metric.TrainerRunSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two blocks that AORTA's {@code overlap_report.py} writes into its {@code summary.json}, with its definitions
 * ({@link TrainerRunSummary}), so that a reader of AORTA's summary finds the same numbers in ours:
 * <pre>
 * "datasets": {label: {count, mean_loss, mean_overlap_ms, mean_compute_ms, mean_allreduce_overlap_ms,
 *                      mean_reducescatter_overlap_ms, overlap_ratio}}
 * "comparison": {reference_overlap_ratio, candidate_overlap_ratio, ratio_delta}
 * </pre>
 * Present only when some labelled directory holds {@code rank_*_metrics.jsonl}; a label whose directory holds none
 * gets {@code {"count": 0}}, as in AORTA. {@code comparison} needs one reference and one candidate label.
 */
public record AortaReportSection(Map<String, TrainerRunSummary> datasets, String reference, String candidate,
                                 List<String> warnings) {

    public static final AortaReportSection NONE = new AortaReportSection(Map.of(), null, null, List.of());

    /**
     * @param dirs      label → directory, in the report's order
     * @param reference the reference label, or null for no comparison block
     * @param candidate the candidate label, or null for no comparison block
     */
    public static AortaReportSection of(Map<String, Path> dirs, String reference, String candidate) throws IOException {
        boolean any = false;
        for (Path dir : dirs.values()) {
            any |= TrainerMetricsDirectory.holdsMetrics(dir);
        }
        if (!any) {
            return NONE;
        }
        Map<String, TrainerRunSummary> datasets = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, Path> e : dirs.entrySet()) {
            TrainerMetricsDirectory.Steps steps = TrainerMetricsDirectory.read(e.getValue());
            warnings.addAll(steps.warnings());
            datasets.put(e.getKey(), TrainerRunSummary.of(steps.steps()));
        }
        boolean compare = reference != null && candidate != null;
        return new AortaReportSection(datasets, compare ? reference : null, compare ? candidate : null, warnings);
    }

    public boolean present() {
        return !datasets.isEmpty();
    }

    /** The comparison block's numbers, or null without one. */
    public TrainerRunSummary.Comparison comparison() {
        return reference == null ? null
                : TrainerRunSummary.Comparison.of(datasets.get(reference), datasets.get(candidate));
    }

    /** Writes the two blocks as fields of the object being written. */
    public void write(JsonGenerator g) throws IOException {
        if (!present()) {
            return;
        }
        g.writeObjectFieldStart("datasets");
        for (Map.Entry<String, TrainerRunSummary> e : datasets.entrySet()) {
            TrainerRunSummary s = e.getValue();
            g.writeObjectFieldStart(e.getKey());
            g.writeNumberField("count", s.count());
            if (s.count() > 0) {
                number(g, "mean_loss", s.meanLoss());
                number(g, "mean_overlap_ms", s.meanOverlapMs());
                number(g, "mean_compute_ms", s.meanComputeMs());
                number(g, "mean_allreduce_overlap_ms", s.meanAllreduceOverlapMs());
                number(g, "mean_reducescatter_overlap_ms", s.meanReducescatterOverlapMs());
                number(g, "overlap_ratio", s.overlapRatio());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        TrainerRunSummary.Comparison c = comparison();
        if (c != null) {
            g.writeObjectFieldStart("comparison");
            g.writeNumberField("reference_overlap_ratio", c.referenceOverlapRatio());
            g.writeNumberField("candidate_overlap_ratio", c.candidateOverlapRatio());
            g.writeNumberField("ratio_delta", c.ratioDelta());
            g.writeEndObject();
        }
    }

    /** JSON has no NaN: a mean loss of lines without a loss is written as null. */
    private static void number(JsonGenerator g, String field, double v) throws IOException {
        if (Double.isNaN(v)) {
            g.writeNullField(field);
        } else {
            g.writeNumberField(field, v);
        }
    }
}
