package dev.aorta.workloads.launchoverhead;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.workloads.launchoverhead.pcie.PcieStats;
import dev.aorta.workloads.result.ResultJson;

/** The result file of {@code aorta launch-overhead -o FILE} (schema {@value #SCHEMA}); README documents every key. */
public final class LaunchOverheadJson {
    public static final String SCHEMA = "aorta.launch_overhead/1";

    private LaunchOverheadJson() {
    }

    public static ObjectNode toJson(LaunchOverheadResult r) {
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("workload_name", "launch_overhead");
        root.put("timestamp", r.timestamp().toString());
        ObjectNode config = root.putObject("config");
        LaunchOverheadOptions o = r.options();
        config.put("centroids", o.shape().centroids());
        config.put("dim", o.shape().dim());
        config.put("batch", o.shape().batch());
        config.put("stages", o.shape().stages());
        config.put("rows_per_centroid", o.shape().rowsPerCentroid());
        config.put("seconds", o.seconds());
        config.put("warmup_steps", o.warmupSteps());
        config.put("device", o.device());
        config.put("seed", o.seed());
        ArrayNode patterns = config.putArray("patterns");
        o.patterns().forEach(p -> patterns.add(p.label()));
        ObjectNode device = root.putObject("device_info");
        device.put("name", r.device().name());
        device.put("compute_capability", r.device().computeCapability());
        device.put("driver_version", r.device().driverVersionText());
        root.put("world_size", r.worldSize());
        ArrayNode ranks = root.putArray("ranks");
        for (LaunchOverheadResult.RankResult rank : r.ranks()) {
            ObjectNode node = ranks.addObject();
            node.put("rank", rank.rank());
            node.put("device", rank.device());
            ArrayNode list = node.putArray("patterns");
            rank.patterns().forEach(p -> list.add(pattern(p)));
        }
        ArrayNode summary = root.putArray("summary");
        for (LaunchOverheadSummary.Row row : LaunchOverheadSummary.of(r)) {
            ObjectNode s = summary.addObject();
            s.put("pattern", row.pattern().label());
            if (row.skipReason() != null) {
                s.put("skipped", row.skipReason());
                continue;
            }
            s.put("ranks", row.ranks());
            s.put("ms_per_step_mean", row.meanMsPerStep());
            s.put("ms_per_step_min", row.minMsPerStep());
            s.put("ms_per_step_max", row.maxMsPerStep());
            s.put("launches_per_step", row.launchesPerStep());
            s.put("syncs_per_step", row.syncsPerStep());
            s.put("collectives_per_step", row.collectivesPerStep());
        }
        ObjectNode correctness = root.putObject("correctness");
        correctness.put("passed", r.correct());
        CodebookShape checked = r.correctness().shape();
        correctness.put("check_shape", checked.describe());
        correctness.put("argmin_problem", r.correctness().argminProblem());
        correctness.put("balanced_problem", r.correctness().balancedProblem());
        correctness.put("balanced_full_size_problem", r.balancedFullSizeProblem());
        correctness.put("all_reduce_problem", r.allReduceProblem());
        return root;
    }

    private static ObjectNode pattern(PatternResult p) {
        ObjectNode o = ResultJson.MAPPER.createObjectNode();
        o.put("pattern", p.pattern().label());
        if (p.wasSkipped()) {
            o.put("status", "skipped");
            o.put("skip_reason", p.skipReason());
            return o;
        }
        o.put("status", "measured");
        o.put("steps", p.steps());
        o.put("elapsed_s", p.elapsedSeconds());
        o.put("ms_per_step", p.msPerStep());
        o.put("step_ms_median", p.medianStepMs());
        o.put("step_ms_min", p.minStepMs());
        o.put("step_ms_max", p.maxStepMs());
        o.put("launches_per_step", p.launchesPerStep());
        o.put("syncs_per_step", p.syncsPerStep());
        o.put("collectives_per_step", p.collectivesPerStep());
        ObjectNode pcie = o.putObject("pcie");
        PcieStats s = p.pcie();
        if (s.available()) {
            pcie.put("source", s.source());
            pcie.put("samples", s.samples());
            pcie.put("rx_mb_s_avg", s.rxAvgMBps());
            pcie.put("rx_mb_s_peak", s.rxPeakMBps());
            pcie.put("tx_mb_s_avg", s.txAvgMBps());
            pcie.put("tx_mb_s_peak", s.txPeakMBps());
        } else {
            pcie.put("unavailable", s.unavailableReason());
        }
        return o;
    }
}
