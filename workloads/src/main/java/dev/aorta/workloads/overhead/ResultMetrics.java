package dev.aorta.workloads.overhead;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.launchoverhead.LaunchOverheadJson;
import dev.aorta.workloads.result.ResultJson;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The times {@code aorta overhead} compares, read from a child's result file by schema; all are
 * lower-is-better. launch_overhead: each measured pattern's ms/step (mean over ranks). A harness run: the
 * median iteration time and the host time per launch. A training run: the median step time as the trainer
 * measured it (host, from one step's end to the next), not the process's wall time with its start-up.
 */
public final class ResultMetrics {
    private ResultMetrics() {
    }

    /** Metric name (with its unit) → value, in the file's order. */
    public static Map<String, Double> from(JsonNode result) {
        String schema = result.path("schema").asText("");
        Map<String, Double> metrics = new LinkedHashMap<>();
        if (schema.equals(LaunchOverheadJson.SCHEMA)) {
            for (JsonNode row : result.path("summary")) {
                if (row.has("ms_per_step_mean")) {
                    metrics.put(row.path("pattern").asText() + " ms/step", row.path("ms_per_step_mean").asDouble());
                }
            }
        } else if (schema.equals(ResultJson.RUN_SCHEMA)) {
            String workload = result.path("workload_name").asText();
            JsonNode latency = result.path("latency_ms");
            if (latency.isObject()) {
                metrics.put(workload + " iteration ms p50", latency.path("p50").asDouble());
            }
            JsonNode host = result.path("host_enqueue").path("us_per_launch");
            if (host.isNumber()) {
                metrics.put(workload + " host us/launch", host.asDouble());
            }
        } else if (schema.equals(ResultJson.TRAIN_SCHEMA)) {
            JsonNode step = result.path("median_step_ms");
            if (step.isNumber()) {
                metrics.put("train median step ms", step.asDouble());
            }
        } else {
            throw new IllegalArgumentException("unknown result schema '" + schema + "': aorta overhead reads "
                    + ResultJson.RUN_SCHEMA + " (aorta run), " + LaunchOverheadJson.SCHEMA + " (aorta launch-overhead)"
                    + " and " + ResultJson.TRAIN_SCHEMA + " (aorta train)");
        }
        if (metrics.isEmpty()) {
            throw new IllegalArgumentException("the result (" + schema + ") holds no measured time to compare");
        }
        return metrics;
    }
}
