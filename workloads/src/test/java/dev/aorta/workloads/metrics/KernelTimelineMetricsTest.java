package dev.aorta.workloads.metrics;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

public class KernelTimelineMetricsTest {

    public static DeviceActivity kernel(String name, long stream, long startUs, long endUs, long queuedUs) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream, startUs * 1000, endUs * 1000, 0,
                queuedUs < 0 ? DeviceActivity.UNKNOWN : queuedUs * 1000, DeviceActivity.UNKNOWN, Dim3.NONE,
                Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    @Test
    void switchOverheadIsMeanInterGapMinusMeanIntraGapOfKernelsSortedByEnd() {
        // by end: A0[0,10] A0[12,20] (intra gap 2) B1[26,30] (inter gap 6) A0[40,50] (inter gap 10)
        List<DeviceActivity> w = List.of(
                kernel("a", 0, 0, 10, -1), kernel("a", 0, 12, 20, -1),
                kernel("b", 1, 26, 30, -1), kernel("a", 0, 40, 50, -1));
        SwitchOverhead s = SwitchOverhead.of(List.of(w));
        assertThat(s.intra().count()).isEqualTo(1);
        assertThat(s.intra().meanUs()).isEqualTo(2);
        assertThat(s.inter().count()).isEqualTo(2);
        assertThat(s.inter().meanUs()).isEqualTo(8);
        assertThat(s.estimatedOverheadUs()).isEqualTo(6);
    }

    @Test
    void overlappingKernelsLeaveNoGapAndOverheadIsNeverNegative() {
        List<DeviceActivity> w = List.of(kernel("a", 0, 0, 10, -1), kernel("b", 1, 5, 15, -1),
                kernel("a", 0, 30, 40, -1));
        SwitchOverhead s = SwitchOverhead.of(List.of(w));
        assertThat(s.inter().count()).isEqualTo(1);  // 15 -> 30 across streams
        assertThat(s.intra().count()).isZero();
        assertThat(s.estimatedOverheadUs()).isEqualTo(15);
        SwitchOverhead onlyIntra = SwitchOverhead.of(List.of(List.of(kernel("a", 0, 0, 1, -1),
                kernel("a", 0, 5, 6, -1))));
        assertThat(onlyIntra.estimatedOverheadUs()).isZero();
    }

    @Test
    void gapsAreNotCountedAcrossWindows() {
        SwitchOverhead s = SwitchOverhead.of(List.of(List.of(kernel("a", 0, 0, 10, -1)),
                List.of(kernel("b", 1, 1000, 1010, -1))));
        assertThat(s.inter().count()).isZero();
    }

    @Test
    void dispatchLatencyIsStartMinusReadySplitByThePredecessorsStream() {
        // stream 0: k1 [0,10] queued at 0; k2 queued at 1, ready at 10 (k1 ends), starts 13 -> 3 us same-stream
        // stream 1: k3 queued at 2, ready at 2, the device ran k2 until 20; starts 25 after k2 (other stream) -> 23 us
        List<DeviceActivity> w = List.of(kernel("k1", 0, 0, 10, 0), kernel("k2", 0, 13, 20, 1),
                kernel("k3", 1, 25, 30, 2));
        DispatchLatency d = DispatchLatency.of(List.of(w));
        assertThat(d.available()).isTrue();
        assertThat(d.sameStreamUs().count()).isEqualTo(1);
        assertThat(d.sameStreamUs().mean()).isCloseTo(3, within(1e-9));
        assertThat(d.crossStreamUs().count()).isEqualTo(1);
        assertThat(d.crossStreamUs().mean()).isCloseTo(23, within(1e-9));
    }

    @Test
    void kernelsQueuedAfterTheDeviceFreedUpAreHostBoundAndLeftOut() {
        List<DeviceActivity> w = List.of(kernel("k1", 0, 0, 10, 0), kernel("k2", 0, 60, 70, 50));
        DispatchLatency d = DispatchLatency.of(List.of(w));
        assertThat(d.sameStreamUs()).isNull();
        assertThat(d.crossStreamUs()).isNull();
    }

    @Test
    void dispatchLatencyAndConvoyNeedQueuedTimestamps() {
        List<DeviceActivity> w = List.of(kernel("k1", 0, 0, 10, -1), kernel("k2", 1, 12, 20, -1));
        assertThat(DispatchLatency.of(List.of(w)).available()).isFalse();
        assertThat(DispatchLatency.of(List.of(w)).unavailableReason()).contains("queued");
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

    @Test
    void kernelClassesAreGroupedByNameMostDeviceTimeFirst() {
        List<KernelClassStats> k = KernelClassStats.of(List.of(kernel("small", 0, 0, 2, -1),
                kernel("gemm", 1, 0, 100, -1), kernel("small", 0, 3, 7, -1)));
        assertThat(k).extracting(KernelClassStats::name).containsExactly("gemm", "small");
        assertThat(k.get(1).count()).isEqualTo(2);
        assertThat(k.get(1).durationUs().mean()).isEqualTo(3);
        assertThat(k.get(1).totalMs()).isCloseTo(0.006, within(1e-12));
    }

    @Test
    void unionCountsOverlappingTimeOnce() {
        assertThat(Intervals.unionLength(List.of(new Intervals.Interval(0, 10), new Intervals.Interval(5, 15),
                new Intervals.Interval(20, 30), new Intervals.Interval(21, 22)))).isEqualTo(25);
        assertThat(Intervals.unionLength(List.of())).isZero();
    }
}
