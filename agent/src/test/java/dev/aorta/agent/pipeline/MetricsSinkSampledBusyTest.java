package dev.aorta.agent.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.metric.SampledBusyTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** With sampled event pairs, each metrics line estimates each stream's busy time from its samples and launches. */
class MetricsSinkSampledBusyTest {
    static final long S1 = 0x7f00_0000_1000L;
    static final long S2 = 0x7f00_0000_2000L;
    static final long MS = 1_000_000L;

    @Test
    void eachIterationEstimatesEachStreamsBusyTimeWithItsInterval(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rank_0_metrics.jsonl");
        MetricsSink sink = new MetricsSink(file, 0, 1, 2000, () -> "events(1/10)", () -> 0L, () -> 0L, () -> -1L);
        CallRecord r = new CallRecord();
        long correlation = 0;
        // iteration 0 = [0, 10 ms): 100 launches on S1 (kernels alternate 20 and 40 µs, every 10th sampled), 7 on S2
        // of which none was sampled; iteration 1 = [10, 20 ms): 50 launches on S1 only
        for (int i = 0; i < 100; i++) {
            long t = i * 50_000L;
            sink.call(r.reset("cuLaunchKernel", CallKind.LAUNCH, 1, S1, t, t + 2_000, ++correlation, 0));
            if (i % 10 == 0) {
                long d = (i / 10) % 2 == 0 ? 20_000 : 40_000;
                sink.activity(kernel(S1, t + 3_000, d, correlation));
            }
        }
        for (int i = 0; i < 7; i++) {
            sink.call(r.reset("cuLaunchKernel", CallKind.LAUNCH, 1, S2, i * 100_000L, i * 100_000L + 2_000, ++correlation, 0));
        }
        // copies are not kernel launches and do not count
        sink.call(r.reset("cuMemcpyHtoDAsync", CallKind.COPY, 1, S1, 1_000, 2_000, ++correlation, 0));
        for (int i = 0; i < 50; i++) {
            long t = 10 * MS + i * 100_000L;
            sink.call(r.reset("cuLaunchKernel", CallKind.LAUNCH, 1, S1, t, t + 2_000, ++correlation, 0));
            if (i % 10 == 0) {
                sink.activity(kernel(S1, t + 3_000, 30_000, correlation));
            }
        }
        sink.marker(new Marker(Marker.Kind.ITERATION, "step 0", 0, 0, 0, 10 * MS, ClockDomain.HOST_MONOTONIC));
        sink.marker(new Marker(Marker.Kind.ITERATION, "step 1", 0, 1, 10 * MS, 20 * MS, ClockDomain.HOST_MONOTONIC));
        sink.close();

        List<JsonNode> lines = Files.readAllLines(file).stream().map(MetricsSinkSampledBusyTest::json).toList();
        JsonNode first = lines.get(0).get("profile").get("aorta").get("stream_busy_estimated");
        JsonNode s1 = first.get("0x" + Long.toHexString(S1));
        SampledBusyTime expected = SampledBusyTime.of(100, new double[] {20_000, 40_000, 20_000, 40_000, 20_000,
                40_000, 20_000, 40_000, 20_000, 40_000});
        assertThat(s1.get("launches").asLong()).isEqualTo(100);
        assertThat(s1.get("sampled").asInt()).isEqualTo(10);
        assertThat(s1.get("busy_ms").asDouble()).isCloseTo(3.0, within(1e-9));
        assertThat(s1.get("ci95_low_ms").asDouble()).isCloseTo(expected.lowNs() / 1e6, within(1e-9)).isLessThan(3.0);
        assertThat(s1.get("ci95_high_ms").asDouble()).isCloseTo(expected.highNs() / 1e6, within(1e-9));
        JsonNode s2 = first.get("0x" + Long.toHexString(S2));
        assertThat(s2.get("launches").asLong()).isEqualTo(7);
        assertThat(s2.get("sampled").asInt()).isZero();
        assertThat(s2.get("busy_ms").isNull()).isTrue();

        JsonNode second = lines.get(1).get("profile").get("aorta").get("stream_busy_estimated");
        assertThat(second.has("0x" + Long.toHexString(S2))).as("no launches there").isFalse();
        JsonNode s1b = second.get("0x" + Long.toHexString(S1));
        assertThat(s1b.get("launches").asLong()).isEqualTo(50);
        assertThat(s1b.get("busy_ms").asDouble()).as("identical samples: exact").isCloseTo(1.5, within(1e-9));
        assertThat(s1b.get("ci95_high_ms").asDouble()).isCloseTo(1.5, within(1e-9));
    }

    @Test
    void theExitSummarySaysEstimatedAndGivesTheInterval() {
        SampledStreamBusy busy = new SampledStreamBusy();
        for (int i = 0; i < 1000; i++) {
            busy.launch(S1, i);
            if (i % 100 == 0) {
                busy.sample(S1, i, i % 200 == 0 ? 10_000 : 14_000);
            }
        }
        busy.launch(S2, 5);

        SampledStreamBusy.Estimate s1 = busy.run().get(S1);
        assertThat(MetricsSink.estimateLine("0x1000", s1)).matches(
                "stream 0x1000 busy 12\\.000 ms estimated \\(95% interval 1[01]\\.\\d{3} to 1[23]\\.\\d{3} ms\\) from 10"
                        + " sampled of 1000 kernel launches");
        assertThat(MetricsSink.estimateLine("0x2000", busy.run().get(S2)))
                .isEqualTo("stream 0x2000 busy time unknown: none of its 1 kernel launches was sampled");
    }

    @Test
    void withCuptiNoEstimateIsWritten(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rank_0_metrics.jsonl");
        MetricsSink sink = new MetricsSink(file, 0, 1, 2000, () -> "cupti", () -> 0L, () -> 0L, () -> -1L);
        sink.call(new CallRecord().reset("cuLaunchKernel", CallKind.LAUNCH, 1, S1, 10, 20, 1, 0));
        sink.marker(new Marker(Marker.Kind.ITERATION, "step 0", 0, 0, 0, MS, ClockDomain.HOST_MONOTONIC));
        sink.close();

        assertThat(json(Files.readAllLines(file).get(0)).get("profile").get("aorta").has("stream_busy_estimated")).isFalse();
    }

    private static DeviceActivity kernel(long stream, long start, long duration, long correlation) {
        return new DeviceActivity(ActivityKind.KERNEL, "kernel@0x1", 0, 0, stream, start, start + duration, correlation,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, new Dim3(1, 1, 1), new Dim3(1, 1, 1), 0,
                ClockDomain.HOST_MONOTONIC);
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
