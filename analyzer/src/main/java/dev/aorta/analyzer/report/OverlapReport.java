package dev.aorta.analyzer.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.metrics.Analysis;
import dev.aorta.analyzer.metrics.AnalysisResult;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.metrics.WindowReport;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The content of {@code aorta report}: per-label aggregates of the overlap metrics (docs/metrics.md) over iterations, and the comparison of
 * each candidate label with the reference label. Written as {@code summary.json}:
 * <pre>
 * {"labels": {L: {"log_dir", "ranks", "iterations", "metrics": {name: {count, mean, median, std, min, max}},
 *                  "analyses": {analysis: {value name: {count, mean, median, std, min, max}}},
 *                  "clock_offsets", "stragglers", "kernels_across_ranks", "collective_skew" ({@link CrossRankJson}),
 *                  "top_kernels": [{rank, class, name, count, total_ns,
 *                  share_of_class}], "warnings": [..]}},
 *  "comparisons": [{"reference", "candidate", "metrics": {name: {reference_mean, candidate_mean, delta, ratio,
 *                   welch_t_p, mann_whitney_p, significant}}}],
 *  "datasets": {..}, "comparison": {..}}        (AORTA's own report's blocks: {@link AortaReportSection})
 * </pre>
 */
public record OverlapReport(List<LabelRun> runs, String reference, List<String> candidates,
                            AortaReportSection aortaSection) {

    /** A report without AORTA's blocks (no directory of rank_*_metrics.jsonl). */
    public OverlapReport(List<LabelRun> runs, String reference, List<String> candidates) {
        this(runs, reference, candidates, AortaReportSection.NONE);
    }

    public Map<Metric, Aggregate> aggregates(LabelRun run) {
        Map<Metric, Aggregate> out = new LinkedHashMap<>();
        for (Metric m : Metric.values()) {
            out.put(m, Aggregate.of(values(run, m)));
        }
        return out;
    }

    /**
     * The values of each plugin {@link dev.aorta.analyzer.metrics.Analysis} over the run's iterations, aggregated
     * like the built-in metrics: analysis name, then value name, in the order first met. Undefined (NaN) values
     * are not counted.
     */
    public Map<String, Map<String, Aggregate>> analysisAggregates(LabelRun run) {
        Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
        for (WindowReport r : run.iterations()) {
            for (AnalysisResult result : r.analyses()) {
                for (Analysis.Value v : result.values()) {
                    List<Double> of = values.computeIfAbsent(result.analysis(), a -> new LinkedHashMap<>())
                            .computeIfAbsent(v.name(), n -> new ArrayList<>());
                    if (!Double.isNaN(v.value())) {
                        of.add(v.value());
                    }
                }
            }
        }
        Map<String, Map<String, Aggregate>> out = new LinkedHashMap<>();
        values.forEach((analysis, byName) -> {
            Map<String, Aggregate> aggregates = new LinkedHashMap<>();
            byName.forEach((name, v) -> aggregates.put(name, Aggregate.of(v.stream().mapToDouble(Double::doubleValue)
                    .toArray())));
            out.put(analysis, aggregates);
        });
        return out;
    }

    public List<Comparison> comparison(String candidate) {
        LabelRun ref = run(reference);
        LabelRun cand = run(candidate);
        List<Comparison> out = new ArrayList<>();
        for (Metric m : Metric.values()) {
            out.add(Comparison.of(m, values(ref, m), values(cand, m)));
        }
        return out;
    }

    public LabelRun run(String label) {
        return runs.stream().filter(r -> r.label().equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no --label " + label));
    }

    /** The metric's values over the run's windows, leaving out the windows where it is undefined. */
    static double[] values(LabelRun run, Metric m) {
        return run.iterations().stream().map((WindowReport r) -> m.of(r.overlap())).filter(v -> v != null)
                .mapToDouble(Double::doubleValue).toArray();
    }

    public void writeSummaryJson(OutputStream out) throws IOException {
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeObjectFieldStart("labels");
            for (LabelRun run : runs) {
                g.writeObjectFieldStart(run.label());
                g.writeStringField("log_dir", run.logDir().toString());
                g.writeNumberField("ranks", run.analysis().timelines().size());
                g.writeNumberField("iterations", run.iterations().size());
                g.writeObjectFieldStart("metrics");
                for (Map.Entry<Metric, Aggregate> e : aggregates(run).entrySet()) {
                    aggregate(g, e.getKey().key(), e.getValue());
                }
                g.writeEndObject();
                g.writeObjectFieldStart("analyses");
                for (Map.Entry<String, Map<String, Aggregate>> analysis : analysisAggregates(run).entrySet()) {
                    g.writeObjectFieldStart(analysis.getKey());
                    for (Map.Entry<String, Aggregate> e : analysis.getValue().entrySet()) {
                        aggregate(g, e.getKey(), e.getValue());
                    }
                    g.writeEndObject();
                }
                g.writeEndObject();
                CrossRankJson.writeFields(g, run.analysis());
                g.writeArrayFieldStart("top_kernels");
                for (WindowReport.RankKernels rk : run.topKernels()) {
                    for (KernelBreakdown.Entry k : rk.kernels()) {
                        g.writeStartObject();
                        g.writeNumberField("rank", rk.rank());
                        g.writeStringField("class", k.activityClass().name().toLowerCase(java.util.Locale.ROOT));
                        g.writeStringField("name", k.name());
                        g.writeNumberField("count", k.count());
                        g.writeNumberField("total_ns", k.totalNs());
                        g.writeNumberField("share_of_class", k.shareOfClass());
                        g.writeEndObject();
                    }
                }
                g.writeEndArray();
                g.writeArrayFieldStart("whole_trace_breakdowns");
                for (LabelRun.RankBreakdowns rb : run.wholeTraceBreakdowns()) {
                    g.writeStartObject();
                    g.writeNumberField("rank", rb.rank());
                    BreakdownsJson.write(g, rb.breakdowns());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeArrayFieldStart("warnings");
                for (String w : run.analysis().warnings()) {
                    g.writeString(w);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeArrayFieldStart("comparisons");
            for (String candidate : candidates) {
                g.writeStartObject();
                g.writeStringField("reference", reference);
                g.writeStringField("candidate", candidate);
                g.writeObjectFieldStart("metrics");
                for (Comparison c : comparison(candidate)) {
                    g.writeObjectFieldStart(c.metric().key());
                    number(g, "reference_mean", c.referenceMean());
                    number(g, "candidate_mean", c.candidateMean());
                    number(g, "delta", c.delta());
                    number(g, "ratio", c.ratio());
                    number(g, "welch_t_p", c.welchP());
                    number(g, "mann_whitney_p", c.mannWhitneyP());
                    g.writeBooleanField("significant", c.significant());
                    g.writeEndObject();
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            aortaSection.write(g);
            g.writeEndObject();
        }
    }

    private static void aggregate(JsonGenerator g, String field, Aggregate a) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("count", a.count());
        number(g, "mean", a.mean());
        number(g, "median", a.median());
        number(g, "std", a.std());
        number(g, "min", a.min());
        number(g, "max", a.max());
        g.writeEndObject();
    }

    /** JSON has no NaN: an undefined number is written as null. */
    private static void number(JsonGenerator g, String field, double v) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            g.writeNullField(field);
        } else {
            g.writeNumberField(field, v);
        }
    }
}
