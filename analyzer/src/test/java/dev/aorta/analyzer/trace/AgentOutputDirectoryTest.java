package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the agent writes into its output directory, read as one: records, not their per-iteration summary. */
class AgentOutputDirectoryTest {

    @TempDir
    Path dir;

    @Test
    void theMetricsSummaryBesideTheRecordsIsLeftOutAndUntimedRecordsToo() throws Exception {
        long base = 1_795_291_555_000_000_000L;
        try (OutputStream w = Files.newOutputStream(dir.resolve("rank_0_activity.jsonl"));
             EventJsonlWriter out = new EventJsonlWriter(w)) {
            out.write(new ClockAnchor(ClockDomain.CUPTI, base, ClockDomain.HOST_MONOTONIC, 86_000_000_000L));
            out.write(kernel("gemm", base + 1_000, base + 5_000));
            out.write(kernel("ncclDevKernel_AllReduce_Sum_bf16", base + 3_000, base + 9_000));
            // CUPTI's "no timestamps" record (a kernel still running when its communicator was torn down)
            out.write(kernel("ncclDevKernel_AllReduce_Sum_bf16", 0, 0));
        }
        // the same rank's per-iteration summary (the fixture is rank 1's; made rank 0's here)
        Files.writeString(dir.resolve("rank_0_metrics.jsonl"), Files.readString(Fixtures.resource("aorta/rank_1_metrics.jsonl"))
                .replaceAll("\"rank\": ?1,", "\"rank\":0,"));

        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(dir));

        List<DeviceActivity> activities = set.rank(0).activities();
        assertThat(activities).hasSize(2);
        assertThat(activities).allSatisfy(a -> assertThat(a.startNs()).isGreaterThan(base));
        // the agent's own summary beside its own records is left out without a word: that is how the agent writes
        assertThat(set.warnings()).noneSatisfy(w -> assertThat(w).contains("rank_0_metrics.jsonl"));
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("left out 1 device records without timestamps"));
    }

    @Test
    void aMetricsSummaryBesideAnotherFilesRecordsIsLeftOutWithAWarning() throws Exception {
        Files.copy(Fixtures.resource("agent/device-activity-none/rank_0_activity.jsonl"), dir.resolve("app_trace.jsonl"));
        Files.copy(Fixtures.resource("agent/device-activity-none/rank_0_metrics.jsonl"), dir.resolve("rank_0_metrics.jsonl"));

        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(dir));

        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("rank_0_metrics.jsonl: left out"));
    }

    @Test
    void withoutDeviceActivityTheAgentsRecordsStillOutrankItsSummary_noRecordLacksAnAnchor() throws Exception {
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(Fixtures.resource("agent/device-activity-none")));

        TraceAnalysis analysis = TraceAnalysis.of(set, AnalysisOptions.defaults());

        assertThat(analysis.warnings()).noneSatisfy(w -> assertThat(w).contains("no anchor"));
        // the two iterations once, as the agent timed them, not again from the summary's synthetic timeline
        assertThat(set.rank(0).markers()).extracting(Marker::step).containsExactly(0L, 1L);
        assertThat(set.rank(0).markers()).extracting(Marker::clock).containsOnly(ClockDomain.HOST_MONOTONIC);
        assertThat(set.warnings()).noneSatisfy(w -> assertThat(w).contains("rank_0_metrics.jsonl"));
    }

    private static DeviceActivity kernel(String name, long start, long end) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, 7, start, end, 1, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI);
    }
}
