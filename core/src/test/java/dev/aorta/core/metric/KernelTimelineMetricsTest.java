package dev.aorta.core.metric;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Queue switch overhead, dispatch latency and the kernel breakdown on timelines worked out by hand (times in µs). */
class KernelTimelineMetricsTest {

    static DeviceActivity kernel(String name, long stream, long startUs, long endUs, long queuedUs) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream, startUs * 1000, endUs * 1000, 0,
                queuedUs < 0 ? DeviceActivity.UNKNOWN : queuedUs * 1000, DeviceActivity.UNKNOWN, Dim3.NONE,
                Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    @Test
    void switchOverheadIsMeanInterGapMinusMeanIntraGapOfKernelsSortedByEnd() {
        // by end: A0[0,10] A0[12,20] (intra gap 2) B1[26,30] (inter gap 6) A0[40,50] (inter gap 10)
        QueueSwitchOverhead s = QueueSwitchOverhead.of(List.of(kernel("a", 0, 0, 10, -1), kernel("a", 0, 12, 20, -1),
                kernel("b", 1, 26, 30, -1), kernel("a", 0, 40, 50, -1)));
        assertThat(s.intraGaps()).isEqualTo(1);
        assertThat(s.intraGapsNs().mean()).isEqualTo(2_000);
        assertThat(s.interGaps()).isEqualTo(2);
        assertThat(s.interGapsNs().mean()).isEqualTo(8_000);
        assertThat(s.estimatedSwitchOverheadNs()).isEqualTo(6_000);
    }

    @Test
    void overlappingKernelsLeaveNoGapAndOverheadIsNeverNegative() {
        QueueSwitchOverhead s = QueueSwitchOverhead.of(List.of(kernel("a", 0, 0, 10, -1), kernel("b", 1, 5, 15, -1),
                kernel("a", 0, 30, 40, -1), kernel("a", 0, 100, 101, -1)));
        assertThat(s.interGaps()).isEqualTo(1);  // 15 -> 30 across streams
        assertThat(s.intraGaps()).isEqualTo(1);  // 40 -> 100 on stream 0
        assertThat(s.estimatedSwitchOverheadNs()).isZero();
    }

    @Test
    void withoutGapsOfBothKindsTheEstimateIsUndefinedNotTheMeanInterGap() {
        // streams taking turns with long idle stretches (a compute stream and an NCCL stream): only inter gaps
        QueueSwitchOverhead turns = QueueSwitchOverhead.of(List.of(kernel("gemm", 0, 0, 10, -1),
                kernel("nccl", 1, 6_000, 6_010, -1), kernel("gemm", 0, 12_000, 12_010, -1)));
        assertThat(turns.interGaps()).isEqualTo(2);
        assertThat(turns.intraGaps()).isZero();
        assertThat(turns.estimatedSwitchOverheadNs()).isNull();
        QueueSwitchOverhead onlyIntra = QueueSwitchOverhead.of(List.of(kernel("a", 0, 0, 1, -1), kernel("a", 0, 5, 6, -1)));
        assertThat(onlyIntra.estimatedSwitchOverheadNs()).isNull();
    }

    @Test
    void gapsAreNotCountedAcrossWindows() {
        QueueSwitchOverhead s = new QueueSwitchOverhead.Builder().addWindow(List.of(kernel("a", 0, 0, 10, -1)))
                .addWindow(List.of(kernel("b", 1, 1000, 1010, -1))).build();
        assertThat(s.interGaps()).isZero();
    }

    private static DispatchLatency dispatch(List<DeviceActivity> activities, List<Dependency> waits) {
        List<DeviceActivity> byStart = activities.stream().sorted(Comparator.comparingLong(DeviceActivity::startNs)).toList();
        long[] queued = byStart.stream().mapToLong(DeviceActivity::queuedNs).toArray();
        DispatchLatency.PerActivity values = DispatchLatency.perActivity(byStart, queued, i -> true, waits);
        DispatchLatency.Builder b = new DispatchLatency.Builder();
        for (int i = 0; i < byStart.size(); i++) {
            b.add(values, i);
        }
        return b.build();
    }

    @Test
    void dispatchLatencyIsStartMinusTheEndOfWhatTheKernelWaitedFor() {
        // stream 0: k1 [0,10] queued at 0 on an idle stream: 0 us from enqueue; k2 queued at 1 behind k1, ready at 10,
        // starts 13 -> 3 us same-stream. stream 1: k3 queued at 2 depends on nothing, starts 25 -> 23 us from enqueue
        DispatchLatency d = dispatch(List.of(kernel("k1", 0, 0, 10, 0), kernel("k2", 0, 13, 20, 1),
                kernel("k3", 1, 25, 30, 2)), List.of());
        assertThat(d.measured()).isTrue();
        assertThat(d.sameStream().count()).isEqualTo(1);
        assertThat(d.sameStream().mean()).isCloseTo(3_000, within(1e-9));
        assertThat(d.crossStream().count()).isZero();
        assertThat(d.fromEnqueue().count()).isEqualTo(2);
        assertThat(d.fromEnqueue().max()).isCloseTo(23_000, within(1e-9));
    }

    @Test
    void aKernelQueuedAfterItsStreamFreedUpWaitedOnItsLaunchNotOnWork() {
        // the host was late (host-bound): k2 was queued at 50, after k1 ended at 10; it is no same-stream wait
        DispatchLatency d = dispatch(List.of(kernel("k1", 0, 0, 10, 0), kernel("k2", 0, 60, 70, 50)), List.of());
        assertThat(d.sameStream().count()).isZero();
        assertThat(d.crossStream().count()).isZero();
        assertThat(d.fromEnqueue().count()).isEqualTo(2);
    }

    @Test
    void aKernelBehindAnEventWaitHasCrossStreamLatency() {
        // k1 on stream 1 queued at 0 runs [0,100]; stream 2 waits (at 6) for an event recorded on 1 at 5;
        // k2 on stream 2 queued at 10 starts at 130: ready at 100, so 30 us cross-stream
        Dependency wait = new Dependency(77, 1, 5_000, 2, 6_000, ClockDomain.CUPTI);
        DispatchLatency d = dispatch(List.of(kernel("k1", 1, 0, 100, 0), kernel("k2", 2, 130, 150, 10)), List.of(wait));
        assertThat(d.crossStream().count()).isEqualTo(1);
        assertThat(d.crossStream().mean()).isEqualTo(30_000);
    }

    @Test
    void withoutEnqueueTimesDispatchLatencyIsNotMeasured() {
        assertThat(dispatch(List.of(kernel("k1", 0, 0, 10, -1), kernel("k2", 1, 12, 20, -1)), List.of()).measured())
                .isFalse();
    }

    @Test
    void kernelBreakdownGroupsByNameMostDeviceTimeFirst() {
        List<KernelBreakdown.Entry> k = KernelBreakdown.byName(List.of(kernel("small", 0, 0, 2, -1),
                kernel("gemm", 1, 0, 100, -1), kernel("small", 0, 3, 7, -1)));
        assertThat(k).extracting(KernelBreakdown.Entry::name).containsExactly("gemm", "small");
        assertThat(k.get(1).count()).isEqualTo(2);
        assertThat(k.get(1).durationNs().mean()).isEqualTo(3_000);
        assertThat(k.get(1).totalNs()).isEqualTo(6_000);
        assertThat(k.get(1).share()).isCloseTo(6.0 / 106, within(1e-12));
    }

    @Test
    void streamUtilizationIsTheStreamsBusyShareOfTheWindow() {
        IntervalSet stream = IntervalSet.union(new long[] {0, 25, 90}, new long[] {50, 75, 200}, 3);
        StreamUtilization u = StreamUtilization.of(stream, 0, 100);
        assertThat(u.busyNs()).isEqualTo(85);
        assertThat(u.utilization()).isCloseTo(0.85, within(1e-12));
        assertThat(StreamUtilization.of(stream, 5, 5).utilization()).isZero();
    }

    @Test
    void theDefaultClassifierKnowsTheCommunicationOfEveryModule() {
        ActivityClassifier c = ActivityClassifier.defaults();
        for (String comm : List.of("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclDevKernel_Generic", "rccl_kernel",
                "cross_device_reduce_1stage", "one_shot_all_reduce", "reduce_scatter_kernel", "allgather_fused",
                "simulated_collective_copy")) {
            assertThat(c.classify(kernel(comm, 0, 0, 1, -1))).as(comm).isEqualTo(ActivityClass.COMMUNICATION);
        }
        assertThat(c.classify(kernel("sm90_xmma_gemm", 0, 0, 1, -1))).isEqualTo(ActivityClass.COMPUTE);
        assertThat(c.classify(kernel("__amd_rocclr_copyBuffer", 0, 0, 1, -1))).isEqualTo(ActivityClass.MEMORY);
    }
}
