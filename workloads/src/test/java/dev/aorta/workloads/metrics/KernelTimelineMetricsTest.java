package dev.aorta.workloads.metrics;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The harness's own kernel-timeline metric: the convoy effect (the shared ones are tested in core's dev.aorta.core.metric). */
public class KernelTimelineMetricsTest {

    public static DeviceActivity kernel(String name, long stream, long startUs, long endUs, long queuedUs) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream, startUs * 1000, endUs * 1000, 0,
                queuedUs < 0 ? DeviceActivity.UNKNOWN : queuedUs * 1000, DeviceActivity.UNKNOWN, Dim3.NONE,
                Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    @Test
    void convoyNeedsQueuedTimestamps() {
        List<DeviceActivity> w = List.of(kernel("k1", 0, 0, 10, -1), kernel("k2", 1, 12, 20, -1));
        assertThat(ConvoyEffect.of(List.of(w), Set.of(1L), Set.of(0L), "small", "large").available()).isFalse();
    }

    @Test
    void convoySeparatesWaitsBehindALargeKernelFromOtherWaits() {
        // large GEMM on stream 0 runs [0,100]; small kernel queued at 5 waits until 100 (95 us behind it);
        // a second small kernel queued at 150 on an idle device starts at 152 (2 us otherwise)
        List<DeviceActivity> w = List.of(kernel("gemm", 0, 0, 100, 0), kernel("s", 1, 100, 102, 5),
                kernel("s", 1, 152, 154, 150));
        ConvoyEffect c = ConvoyEffect.of(List.of(w), Set.of(1L), Set.of(0L), "small", "large");
        assertThat(c.behindBlockingUs().count()).isEqualTo(1);
        assertThat(c.behindBlockingUs().mean()).isEqualTo(95);
        assertThat(c.otherwiseUs().mean()).isEqualTo(2);
    }
}
