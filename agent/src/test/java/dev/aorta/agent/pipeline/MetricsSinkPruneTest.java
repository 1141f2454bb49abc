package dev.aorta.agent.pipeline;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsSinkPruneTest {

    /**
     * Without iteration markers the sink keeps 30 s of device activity for a window that may still claim
     * it and prunes every drain cycle once it holds many: pruning must let go of the expired ones without
     * passing over the millions it keeps (at 130 000 kernels/s a full pass per cycle made the drain thread
     * fall behind after ~12 s).
     */
    @Test
    void pruningWithoutMarkersLooksAtEachActivityOnce(@TempDir Path dir) throws Exception {
        MetricsSink sink = new MetricsSink(dir.resolve("rank_0_metrics.jsonl"), 0, 1, 2000, () -> "host",
                () -> 0L, () -> 0L, () -> -1L);
        long every = 7_692;   // 130 000 kernels/s
        long seconds = 40;
        int perCycle = 2_600; // one 20 ms drain cycle
        long n = seconds * 1_000_000_000L / every;
        int cycles = 0;
        for (long i = 0; i < n; i++) {
            long t = i * every;
            sink.activity(new DeviceActivity(ActivityKind.KERNEL, "k", 0, 0, 0, t, t + 5_000, i,
                    DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.HOST_MONOTONIC));
            if (i % perCycle == perCycle - 1) {
                sink.flush();
                cycles++;
            }
        }

        long expired = n - MetricsSink.UNCLAIMED_NS / every;
        assertThat(expired).as("the run outlasts the retention").isGreaterThan(1_000_000);
        assertThat(sink.pruneVisits()).isBetween(expired - 2 * perCycle, expired + cycles);
        sink.close();
    }
}
