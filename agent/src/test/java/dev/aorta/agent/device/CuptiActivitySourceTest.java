package dev.aorta.agent.device;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import example.fakegpu.FakeGpu;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CUPTI source turns the tracer's values into the agent's records, and {@link CuptiLoader} starts it
 * (against the test double of the tracer: no GPU needed).
 */
class CuptiActivitySourceTest {
    private final Received received = new Received();
    private final CuptiActivitySource source = new CuptiActivitySource(3, false, received);

    @Test
    void aKernelBecomesTheAgentsDeviceActivityFieldByField() {
        source.kernel("gemm", 1, 0x7f00L, 100, 250, 42, 90, 95, 8, 4, 2, 256, 16, 1);
        assertThat(received.activities).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(ActivityKind.KERNEL);
            assertThat(a.name()).isEqualTo("gemm");
            assertThat(a.rank()).isEqualTo(3);
            assertThat(a.device()).isEqualTo(1);
            assertThat(a.stream()).isEqualTo(0x7f00L);
            assertThat(a.startNs()).isEqualTo(100);
            assertThat(a.endNs()).isEqualTo(250);
            assertThat(a.correlationId()).isEqualTo(42);
            assertThat(a.queuedNs()).isEqualTo(90);
            assertThat(a.submittedNs()).isEqualTo(95);
            assertThat(a.grid()).isEqualTo(new Dim3(8, 4, 2));
            assertThat(a.block()).isEqualTo(new Dim3(256, 16, 1));
            assertThat(a.bytes()).isZero();
            assertThat(a.clock()).isEqualTo(ClockDomain.CUPTI);
        });
    }

    @Test
    void copiesAndMemsetsKeepTheirBytesAndHaveNoShapeOrLatencyTimestamps() {
        source.memcpy("Memcpy HtoD", 2, 5, 10, 20, 7, 4096);
        source.memset("Memset", 1, 6, 30, 40, 8, 512);
        assertThat(received.activities).containsExactly(
                new DeviceActivity(ActivityKind.MEMCPY, "Memcpy HtoD", 3, 2, 5, 10, 20, 7, DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 4096, ClockDomain.CUPTI),
                new DeviceActivity(ActivityKind.MEMSET, "Memset", 3, 1, 6, 30, 40, 8, DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 512, ClockDomain.CUPTI));
    }

    @Test
    void aDriverCallBecomesAnApiCallOnCuptisClockWithoutAStream() {
        source.driverCall("cuLaunchKernel", 1234, 50, 60, 42, 700);
        assertThat(received.calls).containsExactly(new ApiCall("cuLaunchKernel", 1234, 0, 50, 60, 42, 700, Map.of(),
                ClockDomain.CUPTI));
    }

    @Test
    void theLoaderStartsTheSourceWhichAnchorsCuptisClockAndDeliversWorkWithItsDriverCall() {
        CuptiLoader.Started started = CuptiLoader.tryStart(5, true, received);
        assertThat(started.whyNot()).isNull();
        DeviceActivitySource s = started.source();
        try {
            assertThat(s.name()).isEqualTo("cupti");
            assertThat(received.anchors).singleElement().satisfies(a -> {
                assertThat(a.from()).isEqualTo(ClockDomain.CUPTI);
                assertThat(a.to()).isEqualTo(ClockDomain.HOST_MONOTONIC);
                assertThat(a.fromNs() - a.toNs()).isEqualTo(FakeGpu.CUPTI_OFFSET);
            });
            FakeGpu.run("KERNEL", "loader_test_kernel", 0x5000L, 1_000, 0, 64, 128, "cuLaunchKernel");
            s.flush();
            DeviceActivity kernel = received.activities.stream().filter(a -> a.name().equals("loader_test_kernel"))
                    .findFirst().orElseThrow();
            assertThat(kernel.rank()).isEqualTo(5);
            assertThat(kernel.grid()).isEqualTo(new Dim3(64, 1, 1));
            assertThat(received.calls).filteredOn(c -> c.correlationId() == kernel.correlationId())
                    .singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("cuLaunchKernel"));
        } finally {
            s.stop();
        }
    }

    @Test
    void theLoaderNamesTheSourceClassAndTheRealTracer() {
        assertThat(CuptiLoader.SOURCE).isEqualTo(CuptiActivitySource.class.getName());
        assertThat(dev.aorta.agent.RealAortaGpu.POOL.describe(CuptiLoader.TRACER).isResolved()).isTrue();
    }

    static final class Received implements CuptiLoader.Sink {
        final List<DeviceActivity> activities = new CopyOnWriteArrayList<>();
        final List<ApiCall> calls = new CopyOnWriteArrayList<>();
        final List<ClockAnchor> anchors = new CopyOnWriteArrayList<>();
        final List<Long> subscriptions = new CopyOnWriteArrayList<>();
        final List<Long> unsubscriptions = new CopyOnWriteArrayList<>();
        final List<Long> stops = new CopyOnWriteArrayList<>();

        @Override
        public void activity(DeviceActivity activity) {
            activities.add(activity);
        }

        @Override
        public void driverCall(ApiCall call) {
            calls.add(call);
        }

        @Override
        public void anchor(ClockAnchor anchor) {
            anchors.add(anchor);
        }

        @Override
        public void subscribing(long hostNs) {
            subscriptions.add(hostNs);
        }

        @Override
        public void unsubscribing(long hostNs) {
            unsubscriptions.add(hostNs);
        }

        @Override
        public void stopped(long hostNs) {
            stops.add(hostNs);
        }
    }
}
