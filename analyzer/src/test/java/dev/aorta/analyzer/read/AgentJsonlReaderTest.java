package dev.aorta.analyzer.read;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class AgentJsonlReaderTest {

    static void writeAgentTrace(Path file, int rank, long cuptiToMonotonic) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); EventJsonlWriter w = new EventJsonlWriter(out)) {
            w.write(new ClockAnchor(ClockDomain.CUPTI, 0, ClockDomain.HOST_MONOTONIC, cuptiToMonotonic));
            w.write(new Marker(Marker.Kind.ITERATION, "step", rank, 0, 1_000 + cuptiToMonotonic, 20_000 + cuptiToMonotonic,
                    ClockDomain.HOST_MONOTONIC));
            w.write(new ApiCall("cuLaunchKernel", 1, 7, 1_500 + cuptiToMonotonic, 1_800 + cuptiToMonotonic, 11, 0,
                    Map.of("grid", 64), ClockDomain.HOST_MONOTONIC));
            w.write(new DeviceActivity(ActivityKind.KERNEL, "gemm", rank, 0, 7, 2_000, 10_000, 11, 1_900, 1_950,
                    new Dim3(64, 1, 1), new Dim3(256, 1, 1), 0, ClockDomain.CUPTI));
            w.write(new DeviceActivity(ActivityKind.KERNEL, "ncclDevKernel_AllReduce", rank, 0, 9, 6_000, 16_000, 12,
                    DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 1 << 20, ClockDomain.CUPTI));
        }
    }

    @Test
    void agentRecordsOnTwoClocksMeetOnOneTimelineThroughTheAnchor(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("rank_0_activity.jsonl");
        writeAgentTrace(file, 0, 5_000_000);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.activities()).hasSize(2);
        RankTimeline t = new RankTimeline(r, ActivityClassifier.defaults());
        assertThat(t.clock()).isEqualTo(ClockDomain.CUPTI);
        // the iteration (host-monotonic) maps back onto the CUPTI clock of the kernels
        assertThat(t.markers()).singleElement().satisfies(m -> {
            assertThat(m.startNs()).isEqualTo(1_000);
            assertThat(m.endNs()).isEqualTo(20_000);
        });
        assertThat(t.apiCalls()).singleElement().satisfies(c -> assertThat(c.startNs()).isEqualTo(1_500));
    }

    @Test
    void aLineCutShortByAKilledRunIsReportedWithItsNumberAndTheRestKept(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("rank_3_activity.jsonl");
        writeAgentTrace(file, 3, 0);
        Files.writeString(file, "{\"type\":\"activity\",\"kind\":\"KERNEL\",\"name\":\"cut", StandardOpenOption.APPEND);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks()).extracting(RankTrace::rank).containsExactly(3);
        assertThat(set.ranks().iterator().next().activities()).hasSize(2);
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).startsWith("rank_3_activity.jsonl:6:"));
    }
}
