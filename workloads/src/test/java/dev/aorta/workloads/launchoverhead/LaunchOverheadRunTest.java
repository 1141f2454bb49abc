package dev.aorta.workloads.launchoverhead;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitor;
import dev.aorta.workloads.launchoverhead.pcie.PcieStats;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A whole run on the host model with a fake clock and a fake PCIe monitor. */
class LaunchOverheadRunTest {
    private static final DeviceInfo DEVICE = new DeviceInfo(0, "Host model", 1, 0, 0, 0, 0, 0, 0, 0, 0, "none");
    private static final CodebookShape SHAPE = new CodebookShape(16, 4, 64, 2);

    private long nowNs;
    private int monitorsStarted;

    private LaunchOverheadResult run(List<Pattern> patterns) {
        LaunchOverheadRun run = new LaunchOverheadRun(problem -> new HostCodebookDevice(problem) {
            @Override
            public void finishStep() {
                super.finishStep();
                nowNs += 4_000_000;  // every step takes 4 ms
            }
        }, () -> new PcieMonitor() {
            @Override
            public void start() {
                monitorsStarted++;
            }

            @Override
            public PcieStats stop() {
                return new PcieStats("fake", null, 3, 1, 2, 3, 4);
            }
        }, () -> nowNs);
        return run.run(new LaunchOverheadOptions(SHAPE, patterns, 0.02, 1, 0, 5), DEVICE);
    }

    @Test
    void singleGpuPatternsAreMeasuredAndCollectivePatternsSkippedWithTheirReason() {
        LaunchOverheadResult r = run(List.of(Pattern.values()));
        List<PatternResult> patterns = r.ranks().getFirst().patterns();
        assertThat(patterns).extracting(PatternResult::pattern).containsExactly(Pattern.values());
        PatternResult argmin = patterns.get(0);
        assertThat(argmin.steps()).isEqualTo(5);
        assertThat(argmin.msPerStep()).isEqualTo(4.0);
        assertThat(argmin.launchesPerStep()).isEqualTo(1 + 2 * 7);
        assertThat(argmin.syncsPerStep()).isEqualTo(1);
        PatternResult balanced = patterns.get(1);
        assertThat(balanced.launchesPerStep()).isEqualTo(1 + 2 * (5 + 6 * 16 + 2));
        assertThat(balanced.syncsPerStep()).isEqualTo(2 * 16 + 1);
        assertThat(patterns.get(2).skipReason()).contains("needs 2 or more GPUs");
        assertThat(patterns.get(3).wasSkipped()).isTrue();
        assertThat(monitorsStarted).isEqualTo(2);
        assertThat(r.correct()).isTrue();
    }

    @Test
    void theReportPrintsRankLinesThenTheSummaryAndTheJsonHasEveryPattern() {
        LaunchOverheadResult r = run(List.of(Pattern.ARGMIN, Pattern.BALANCED, Pattern.ALL_REDUCE));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LaunchOverheadReport.print(r, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("rank 0  argmin", "rank 0  balanced", "rank 0  all_reduce skipped: needs 2",
                "summary:", "4.00 ms/step", "15 launches/step", "33 syncs/step", "PCIe rx avg 1.0 peak 2.0 MB/s",
                "argmin = float64 reference: PASS", "balanced, every centroid exactly 4 points: PASS");
        assertThat(out.indexOf("summary:")).isGreaterThan(out.indexOf("rank 0  all_reduce"));

        JsonNode json = LaunchOverheadJson.toJson(r);
        assertThat(json.path("schema").asText()).isEqualTo("aorta.launch_overhead/1");
        JsonNode rank0 = json.path("ranks").get(0).path("patterns");
        assertThat(rank0.get(1).path("ms_per_step").asDouble()).isEqualTo(4.0);
        assertThat(rank0.get(1).path("pcie").path("tx_mb_s_peak").asDouble()).isEqualTo(4.0);
        assertThat(rank0.get(2).path("status").asText()).isEqualTo("skipped");
        assertThat(json.path("summary").get(0).path("ms_per_step_mean").asDouble()).isEqualTo(4.0);
        assertThat(json.path("correctness").path("passed").asBoolean()).isTrue();
    }

    @Test
    void aDeviceThatComputesWrongAssignmentsFailsTheCheck() {
        LaunchOverheadRun run = new LaunchOverheadRun(problem -> new HostCodebookDevice(problem) {
            @Override
            public int[] assignments(int stage) {
                int[] a = super.assignments(stage);
                a[0] = (a[0] + 1) % problem.shape().centroids();
                return a;
            }
        }, () -> PcieMonitor.unavailable("none here"), () -> nowNs += 1_000_000);
        CorrectnessCheck.Result c = run.check(new LaunchOverheadOptions(SHAPE, List.of(Pattern.ARGMIN), 1, 0, 0, 5));
        assertThat(c.passed()).isFalse();
        assertThat(c.argminProblem()).contains("point 0");
        assertThat(c.balancedProblem()).contains("points, 4 expected");
    }
}
