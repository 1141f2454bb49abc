package dev.aorta.workloads.result;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.metrics.Bootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares a test result with a baseline: throughput and the mean, p50, p95 and p99 iteration latency,
 * sweeps paired by stream count. A change is a regression when it is worse than the threshold and,
 * when both files carry iteration samples, its 99% bootstrap confidence interval excludes no-change;
 * files without samples (AORTA's, or sync mode none) are judged by the threshold alone.
 * Reads our files and AORTA's (same keys).
 */
public final class ResultComparison {

    public enum Verdict { REGRESSION, IMPROVEMENT, WITHIN_THRESHOLD, NOT_SIGNIFICANT }

    /**
     * One metric of one pair.
     *
     * @param change relative change test/baseline − 1 of the metric itself (for throughput: positive is better)
     * @param ciLow  99% interval of the change, or NaN when judged by the threshold alone
     */
    public record MetricChange(String metric, boolean higherIsBetter, double baseline, double test, double change,
                               double ciLow, double ciHigh, Verdict verdict) {
        public boolean bootstrapped() {
            return !Double.isNaN(ciLow);
        }
    }

    /** @param streams the stream count of the pair; for single runs the baseline's */
    public record Pair(int streams, List<MetricChange> metrics, List<String> notes) {
    }

    public record Report(String workload, boolean sweep, double threshold, List<Pair> pairs, List<String> notes) {
        public boolean hasRegression() {
            return pairs.stream().flatMap(p -> p.metrics().stream()).anyMatch(m -> m.verdict() == Verdict.REGRESSION);
        }
    }

    private ResultComparison() {
    }

    public static Report compare(JsonNode baseline, String baselineName, JsonNode test, String testName,
                                 double threshold) {
        if (!(threshold > 0) || threshold >= 10) {
            throw new IllegalArgumentException("--threshold must be a relative change > 0 such as 0.05 (5%), got "
                    + threshold);
        }
        Kind kb = kind(baseline, baselineName);
        Kind kt = kind(test, testName);
        if (kb != kt) {
            throw new IllegalArgumentException("cannot compare a " + kb.label + " (" + baselineName + ") with a "
                    + kt.label + " (" + testName + ")");
        }
        String wb = baseline.path(kb.workloadKey).asText();
        String wt = test.path(kt.workloadKey).asText();
        if (!wb.equals(wt)) {
            throw new IllegalArgumentException("cannot compare results of different workloads: " + baselineName
                    + " is " + wb + ", " + testName + " is " + wt);
        }
        List<String> notes = new ArrayList<>();
        List<Pair> pairs = new ArrayList<>();
        if (kb == Kind.RUN) {
            pairs.add(comparePair(baseline, test, threshold, baselineName, testName));
        } else {
            Map<Integer, JsonNode> b = byStreams(baseline, baselineName);
            Map<Integer, JsonNode> t = byStreams(test, testName);
            for (var e : b.entrySet()) {
                JsonNode other = t.get(e.getKey());
                if (other == null) {
                    notes.add(e.getKey() + " streams only in the baseline: not compared");
                } else {
                    pairs.add(comparePair(e.getValue(), other, threshold, baselineName, testName));
                }
            }
            t.keySet().stream().filter(k -> !b.containsKey(k))
                    .forEach(k -> notes.add(k + " streams only in the test: not compared"));
            if (pairs.isEmpty()) {
                throw new IllegalArgumentException("the sweeps share no stream count: baseline " + b.keySet()
                        + ", test " + t.keySet());
            }
        }
        return new Report(wb, kb == Kind.SWEEP, threshold, pairs, notes);
    }

    private enum Kind {
        RUN("single-run result", "workload_name"), SWEEP("sweep result", "workload");

        final String label;
        final String workloadKey;

        Kind(String label, String workloadKey) {
            this.label = label;
            this.workloadKey = workloadKey;
        }
    }

    private static Kind kind(JsonNode root, String name) {
        String schema = root.path("schema").asText("");
        if (!schema.isEmpty() && !schema.equals(ResultJson.RUN_SCHEMA) && !schema.equals(ResultJson.SWEEP_SCHEMA)) {
            throw new IllegalArgumentException(name + " has schema '" + schema + "'; this aorta reads "
                    + ResultJson.RUN_SCHEMA + " and " + ResultJson.SWEEP_SCHEMA);
        }
        if (root.path("results").isArray() && root.hasNonNull("workload")) {
            return Kind.SWEEP;
        }
        if (root.hasNonNull("workload_name") && root.hasNonNull("throughput")) {
            return Kind.RUN;
        }
        throw new IllegalArgumentException(name + " is not an aorta result: it has neither workload_name and "
                + "throughput (a run) nor workload and results[] (a sweep)");
    }

    private static Map<Integer, JsonNode> byStreams(JsonNode sweep, String name) {
        Map<Integer, JsonNode> result = new TreeMap<>();
        for (JsonNode r : sweep.path("results")) {
            if (!r.hasNonNull("stream_count")) {
                throw new IllegalArgumentException(name + ": a sweep result has no stream_count");
            }
            if (result.put(r.path("stream_count").asInt(), r) != null) {
                throw new IllegalArgumentException(name + ": stream count " + r.path("stream_count").asInt()
                        + " appears twice");
            }
        }
        return result;
    }

    private static Pair comparePair(JsonNode b, JsonNode t, double threshold, String bName, String tName) {
        List<String> notes = new ArrayList<>();
        double[] bs = samples(b);
        double[] ts = samples(t);
        boolean bootstrap = bs.length > 1 && ts.length > 1;
        if (!bootstrap) {
            notes.add("no iteration samples in " + (bs.length > 1 ? tName : bName)
                    + ": judged by the threshold alone");
        }
        List<MetricChange> metrics = new ArrayList<>();
        double tb = b.path("throughput").asDouble();
        double tt = t.path("throughput").asDouble();
        Bootstrap.Interval tpInterval = null;
        if (bootstrap) {
            // throughput is work / time, so its change is the inverse of the mean iteration time's
            Bootstrap.Interval timeChange = Bootstrap.relativeChange(bs, ts, Bootstrap.mean());
            tpInterval = new Bootstrap.Interval(1 / (1 + timeChange.high()) - 1, 1 / (1 + timeChange.low()) - 1);
        }
        metrics.add(judge("throughput", true, tb, tt, threshold, tpInterval));
        JsonNode lb = b.path("latency_ms");
        JsonNode lt = t.path("latency_ms");
        if (!lb.isObject() || !lt.isObject()) {
            notes.add("latency not compared: " + (lb.isObject() ? tName : bName) + " has none (sync mode none)");
        } else {
            for (String key : List.of("mean", "p50", "p95", "p99")) {
                if (!lb.hasNonNull(key) || !lt.hasNonNull(key)) {
                    notes.add("latency " + key + " missing in one file: not compared");
                    continue;
                }
                Bootstrap.Interval ci = bootstrap ? Bootstrap.relativeChange(bs, ts,
                        key.equals("mean") ? Bootstrap.mean() : Bootstrap.percentile(Double.parseDouble(key.substring(1))))
                        : null;
                metrics.add(judge("latency " + key, false, lb.path(key).asDouble(), lt.path(key).asDouble(),
                        threshold, ci));
            }
        }
        return new Pair(b.path("stream_count").asInt(), metrics, notes);
    }

    private static double[] samples(JsonNode run) {
        JsonNode a = run.path("iteration_times_ms");
        double[] v = new double[a.isArray() ? a.size() : 0];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asDouble();
        }
        return v;
    }

    static MetricChange judge(String metric, boolean higherIsBetter, double baseline, double test, double threshold,
                              Bootstrap.Interval ci) {
        double change = baseline == 0 ? (test == 0 ? 0 : Double.POSITIVE_INFINITY) : test / baseline - 1;
        double worse = higherIsBetter ? -change : change;
        Verdict verdict;
        if (Math.abs(change) <= threshold) {
            verdict = Verdict.WITHIN_THRESHOLD;
        } else if (ci != null && !ci.excludesZero()) {
            verdict = Verdict.NOT_SIGNIFICANT;
        } else {
            verdict = worse > 0 ? Verdict.REGRESSION : Verdict.IMPROVEMENT;
        }
        return new MetricChange(metric, higherIsBetter, baseline, test, change,
                ci == null ? Double.NaN : ci.low(), ci == null ? Double.NaN : ci.high(), verdict);
    }
}
