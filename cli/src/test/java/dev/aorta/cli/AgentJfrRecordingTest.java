package dev.aorta.cli;

import dev.aorta.agent.jfr.CollectiveEvent;
import dev.aorta.agent.jfr.DeviceActivityEvent;
import dev.aorta.agent.jfr.IterationEvent;
import dev.aorta.agent.jfr.KernelLaunchEvent;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Marker;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's own JFR events (its real event classes, as {@code jfr=<file>} records them) read back by the analyzer:
 * host calls on their {@code hostStartNanos}/{@code hostDuration} and named by {@code api}, device activities on
 * {@code deviceStartNanos}/{@code deviceDuration} in the clock they name, iterations with their step.
 */
class AgentJfrRecordingTest {

    @Test
    void theAgentsJfrEventsAreReadWithTheirOwnTimesAndNames(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("rank_0.jfr");
        try (Recording r = new Recording()) {
            r.enable(KernelLaunchEvent.class);
            r.enable(DeviceActivityEvent.class);
            r.enable(IterationEvent.class);
            r.enable(CollectiveEvent.class);
            r.start();
            IterationEvent step = new IterationEvent();
            step.step = 7;
            step.hostStartNanos = 1_000;
            step.hostDuration = 9_000;
            step.commit();
            KernelLaunchEvent launch = new KernelLaunchEvent();
            launch.api = "cuLaunchKernel";
            launch.stream = 42;
            launch.hostStartNanos = 2_000;
            launch.hostDuration = 300;
            launch.threadId = 5;
            launch.correlationId = 17;
            launch.commit();
            CollectiveEvent allReduce = new CollectiveEvent();
            allReduce.api = "allReduce";
            allReduce.hostStartNanos = 3_000;
            allReduce.hostDuration = 100;
            allReduce.count = 1024;
            allReduce.dtype = "float32";
            allReduce.commit();
            DeviceActivityEvent kernel = new DeviceActivityEvent();
            kernel.kind = "KERNEL";
            kernel.name = "gemm";
            kernel.stream = 42;
            kernel.device = 0;
            kernel.deviceStartNanos = 50_000;
            kernel.deviceDuration = 4_000;
            kernel.clock = ClockDomain.CUPTI.tag();
            kernel.correlationId = 17;
            kernel.commit();
            r.stop();
            r.dump(file);
        }

        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        RankTrace t = set.ranks().iterator().next();

        assertThat(t.markers()).singleElement().satisfies(m -> {
            assertThat(m.kind()).isEqualTo(Marker.Kind.ITERATION);
            assertThat(m.step()).isEqualTo(7);
            assertThat(m.startNs()).isEqualTo(1_000);
            assertThat(m.endNs()).isEqualTo(10_000);
            assertThat(m.clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
        });
        ApiCall call = t.apiCalls().stream().filter(c -> c.name().equals("cuLaunchKernel")).findFirst().orElseThrow();
        assertThat(call.startNs()).isEqualTo(2_000);
        assertThat(call.endNs()).isEqualTo(2_300);
        assertThat(call.thread()).isEqualTo(5);
        assertThat(call.stream()).isEqualTo(42);
        assertThat(call.correlationId()).isEqualTo(17);
        ApiCall collective = t.apiCalls().stream().filter(c -> c.name().equals("allReduce")).findFirst().orElseThrow();
        assertThat(collective.args()).containsEntry("collective", "allReduce").containsEntry("count", 1024L)
                .containsEntry("dtype", "float32");
        assertThat(t.activities()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(ActivityKind.KERNEL);
            assertThat(a.name()).isEqualTo("gemm");
            assertThat(a.stream()).isEqualTo(42);
            assertThat(a.startNs()).isEqualTo(50_000);
            assertThat(a.endNs()).isEqualTo(54_000);
            assertThat(a.correlationId()).isEqualTo(17);
            assertThat(a.clock()).isEqualTo(ClockDomain.CUPTI);
        });
    }
}
