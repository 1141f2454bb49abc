package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.read.TraceFormatException;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Files of one rank become one timeline only when they can be one run's: files whose time ranges lie more than an hour
 * apart, and further apart than everything they recorded, are refused with one sentence naming both.
 */
class SameRunRuleTest {
    private static final long MINUTE = 60_000_000_000L;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    /** A host-monotonic time of a machine up for a while. */
    private static final long UPTIME = 5 * DAY;

    @TempDir
    Path dir;

    /** An agent trace of rank 0 whose two kernels run from {@code hostStartNs} for {@code lengthNs}. */
    private Path agentTrace(String name, long hostStartNs, long lengthNs) throws IOException {
        Path file = dir.resolve(name);
        long cuptiBase = 1_000_000_000L;
        try (OutputStream w = Files.newOutputStream(file); EventJsonlWriter out = new EventJsonlWriter(w)) {
            out.write(new ClockAnchor(ClockDomain.CUPTI, cuptiBase, ClockDomain.HOST_MONOTONIC, hostStartNs));
            out.write(kernel("gemm", cuptiBase, cuptiBase + lengthNs / 2));
            out.write(kernel("ncclDevKernel_AllReduce_Sum_bf16", cuptiBase + lengthNs / 2, cuptiBase + lengthNs));
        }
        return file;
    }

    private static DeviceActivity kernel(String name, long start, long end) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, 7, start, end, 1, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    private static TraceSet load(Path... files) throws IOException {
        return TraceLoader.withInstalledReaders().load(List.of(files));
    }

    @Test
    void twoAgentTracesOfRankZeroFromDifferentDaysAreRefusedNamingBoth() throws IOException {
        Path monday = agentTrace("rank_0_activity.jsonl", UPTIME, MINUTE);
        Path wednesday = agentTrace("rank0_wednesday_activity.jsonl", UPTIME + 2 * DAY, MINUTE);
        assertThatThrownBy(() -> load(monday, wednesday)).isInstanceOf(TraceFormatException.class)
                .hasMessage("rank_0_activity.jsonl and rank0_wednesday_activity.jsonl cannot be one timeline of rank 0:"
                        + " on the cupti clock they lie 2.0 days apart while they span 1.0 min and 1.0 min,"
                        + " so they are from different runs; analyse each run's files with its own command");
    }

    @Test
    void twoRunsWhoseFilesShareANameAreToldApartAndNamedByPath() throws IOException {
        Files.createDirectories(dir.resolve("monday"));
        Files.createDirectories(dir.resolve("wednesday"));
        Path monday = agentTrace("monday/rank_0_activity.jsonl", UPTIME, MINUTE);
        Path wednesday = agentTrace("wednesday/rank_0_activity.jsonl", UPTIME + 2 * DAY, MINUTE);
        assertThatThrownBy(() -> load(dir)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(monday + " and " + wednesday + " cannot be one timeline of rank 0");
    }

    @Test
    void aKinetoTraceAndARocprofTraceHaveNoClockInCommonAndAreRefused() {
        Path kineto = Fixtures.file("kineto/a100_event_sync_3streams.json.gz");
        Path rocprof = Fixtures.file("rocprof/mi350_rocprofv3_results.json.gz");
        assertThatThrownBy(() -> load(kineto, rocprof)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith("a100_event_sync_3streams.json.gz and mi350_rocprofv3_results.json.gz cannot be"
                        + " one timeline of rank 0: no clock anchor relates their clocks (kineto-epoch-us, boottime)")
                .hasMessageContaining("years apart");
    }

    @Test
    void twoKinetoTracesOfDifferentMachinesAndMonthsAreRefused() {
        Path a100 = Fixtures.file("kineto/a100_event_sync_3streams.json.gz");
        Path mi250 = Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz");
        assertThatThrownBy(() -> load(a100, mi250)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("on the kineto-epoch-us clock they lie").hasMessageContaining("days apart");
    }

    @Test
    void filesOfOneRunAFewMinutesApartShareATimeline() throws IOException {
        Path first = agentTrace("rank_0_activity.jsonl", UPTIME, MINUTE);
        Path later = agentTrace("rank_0_cycle2_activity.jsonl", UPTIME + 20 * MINUTE, MINUTE);
        TraceSet set = load(first, later);
        assertThat(set.rank(0).activities()).hasSize(4);
        assertThat(set.rank(0).source()).isEqualTo("rank_0_activity.jsonl,rank_0_cycle2_activity.jsonl");
    }

    @Test
    void aGapOverAnHourIsAcceptedWhenTheFilesRecordedLongerThanIt() throws IOException {
        // a three-hour run and a short trace taken two hours after it ended: the gap is shorter than what was recorded
        Path run = agentTrace("rank_0_activity.jsonl", UPTIME, 3 * HOUR);
        Path after = agentTrace("rank_0_late_activity.jsonl", UPTIME + 5 * HOUR, MINUTE);
        assertThat(load(run, after).rank(0).activities()).hasSize(4);
        // the same short trace nine hours after the run: the gap (6 h) is longer than both hours and all that ran
        Path muchLater = agentTrace("rank_0_next_day_activity.jsonl", UPTIME + 9 * HOUR, MINUTE);
        assertThatThrownBy(() -> load(run, muchLater)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("lie 6.0 h apart while they span 3.0 h and 1.0 min");
    }
}
