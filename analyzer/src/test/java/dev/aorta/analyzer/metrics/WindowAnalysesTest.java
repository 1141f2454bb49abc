package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.core.metric.QueueSwitchOverhead;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The per-window analyses on small timelines whose answers can be worked out by hand. */
class WindowAnalysesTest {

    private static Window all(RankTimeline t) {
        return WindowPlanner.whole(t);
    }

    /** The report of the whole timeline, as {@code aorta analyze --window whole} computes it. */
    private static WindowReport whole(RankTimeline t) {
        return RankAnalysis.analyze(t, new AnalysisOptions(WindowMode.WHOLE, ActivityClassifier.defaults(), 5),
                new ArrayList<>()).get(0);
    }

    @Test
    void overlapMetricsOfAComputeStreamAndACommStreamWithACopy() {
        // compute [0,100) on 1; nccl [60,160) on 2; memcpy [150,200) on 3 → C=100, M=100, C∩M=40, Y−C−M=[160,200)=40
        RankTimeline t = new TimelineBuilder().kernel("gemm", 1, 0, 100).kernel("ncclDevKernel_AllReduce", 2, 60, 160)
                .activity(ActivityKind.MEMCPY, "Memcpy HtoD", 3, 150, 200, 0, DeviceActivity.UNKNOWN).timeline();
        OverlapMetrics m = whole(t).overlap();
        assertThat(m).isEqualTo(new OverlapMetrics(200, 200, 0, 100, 100, 50, 40, 60, 40));
        assertThat(m.commOverlapPct()).isEqualTo(40.0);
        assertThat(m.aortaOverlapRatio()).isEqualTo(0.4);
    }

    @Test
    void memsetAndCopyKernelsAreMemoryNeverCompute() {
        RankTimeline t = new TimelineBuilder().kernel("__amd_rocclr_fillBufferAligned", 1, 0, 10)
                .activity(ActivityKind.MEMSET, "Memset (Device)", 1, 10, 20, 0, DeviceActivity.UNKNOWN).timeline();
        assertThat(t.classOf(0)).isEqualTo(ActivityClass.MEMORY);
        assertThat(t.classOf(1)).isEqualTo(ActivityClass.MEMORY);
        OverlapMetrics m = whole(t).overlap();
        assertThat(m.computeNs()).isZero();
        assertThat(m.exposedMemcpyNs()).isEqualTo(20);
    }

    @Test
    void perStreamUtilization() {
        RankTimeline t = new TimelineBuilder().kernel("a", 1, 0, 50).kernel("b", 1, 25, 75).kernel("c", 2, 0, 100).timeline();
        List<LabelledStreamUtilization> u = LabelledStreamUtilization.of(t, new ClassIntervals(t), all(t));
        assertThat(u).extracting(LabelledStreamUtilization::stream).containsExactly(1L, 2L);
        assertThat(u.get(0).busyNs()).isEqualTo(75);
        assertThat(u.get(0).utilization()).isCloseTo(0.75, within(1e-12));
        assertThat(u.get(1).utilization()).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void queueSwitchOverheadIsMeanInterMinusMeanIntraGap() {
        // sorted by end: s1[0,10) s1[12,20) gap 2 intra; s2[30,40) gap 10 inter; s1[44,50) gap 4 inter
        RankTimeline t = new TimelineBuilder().kernel("k", 1, 0, 10).kernel("k", 1, 12, 20).kernel("k", 2, 30, 40)
                .kernel("k", 1, 44, 50).timeline();
        QueueSwitchOverhead q = whole(t).queueSwitch();
        assertThat(q.intraGaps()).isEqualTo(1);
        assertThat(q.intraGapsNs().mean()).isEqualTo(2.0);
        assertThat(q.interGaps()).isEqualTo(2);
        assertThat(q.interGapsNs().mean()).isEqualTo(7.0);
        assertThat(q.estimatedSwitchOverheadNs()).isEqualTo(5.0);
    }

    @Test
    void queueSwitchOverheadLeavesOutCopiesAndIsUndefinedWhenStreamsOnlyTakeTurns() {
        // a compute stream and an NCCL stream taking turns with idle time between: 2 inter gaps, no intra gap
        RankTimeline t = new TimelineBuilder().kernel("gemm", 1, 0, 10).kernel("ncclDevKernel_AllReduce", 2, 6_000, 6_010)
                .activity(ActivityKind.MEMCPY, "Memcpy HtoD", 1, 6_011, 6_012, 0, DeviceActivity.UNKNOWN)
                .kernel("gemm", 1, 12_000, 12_010).timeline();
        QueueSwitchOverhead q = whole(t).queueSwitch();
        assertThat(q.interGaps()).isEqualTo(2);
        assertThat(q.intraGaps()).isZero();
        assertThat(q.estimatedSwitchOverheadNs()).isNull();
    }

    @Test
    void kernelBreakdownRanksNamesByTotalTimeWithinEachClass() {
        RankTimeline t = new TimelineBuilder().kernel("small", 1, 0, 10).kernel("big", 1, 10, 40).kernel("small", 1, 40, 50)
                .kernel("ncclKernel", 2, 0, 5).timeline();
        List<KernelBreakdown.Entry> k = KernelBreakdown.of(t, new ClassIntervals(t), all(t), 1);
        assertThat(k).extracting(KernelBreakdown.Entry::name).containsExactly("big", "ncclKernel");
        KernelBreakdown.Entry big = k.get(0);
        assertThat(big.activityClass()).isEqualTo(ActivityClass.COMPUTE);
        assertThat(big.shareOfClass()).isCloseTo(0.6, within(1e-12));
    }

    @Test
    void launchAndDispatchLatencyFromCorrelatedLaunchCalls() {
        // k1 launched at 0, starts 5 (stream idle: from-enqueue 5); k2 launched at 2 while k1 runs until 20,
        // starts 23 → same-stream dispatch latency 3; launch latencies 5 and 21
        RankTimeline t = new TimelineBuilder().launch(1, 0).launch(2, 2)
                .activity(ActivityKind.KERNEL, "k1", 1, 5, 20, 1, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k2", 1, 23, 30, 2, DeviceActivity.UNKNOWN).timeline();
        ClassIntervals u = new ClassIntervals(t);
        var calls = LaunchLatency.callsByCorrelation(t);
        LaunchLatency launch = LaunchLatency.of(t, u, all(t), calls);
        assertThat(launch.latency().count()).isEqualTo(2);
        assertThat(launch.latency().min()).isEqualTo(5);
        assertThat(launch.latency().max()).isEqualTo(21);
        DispatchLatency d = whole(t).dispatch();
        assertThat(d.sameStream().count()).isEqualTo(1);
        assertThat(d.sameStream().mean()).isEqualTo(3.0);
        assertThat(d.crossStream().count()).isZero();
        assertThat(d.fromEnqueue().count()).isEqualTo(1);
        assertThat(d.fromEnqueue().mean()).isEqualTo(5.0);
    }

    @Test
    void aKernelWaitingOnAnEventOfAnotherStreamHasCrossStreamDispatchLatency() {
        // k1 on stream 1 launched at 0, runs [0,100); event recorded on 1 at 5, waited on by stream 2 at 6;
        // k2 on stream 2 launched at 10 starts at 130: ready at 100 (k1's end), so 30 ns cross-stream
        TimelineBuilder b = new TimelineBuilder().launch(1, 0).launch(2, 10)
                .activity(ActivityKind.KERNEL, "k1", 1, 0, 100, 1, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k2", 2, 130, 150, 2, DeviceActivity.UNKNOWN);
        b.trace().dependencies().add(new dev.aorta.core.event.Dependency(77, 1, 5, 2, 6,
                dev.aorta.core.event.ClockDomain.CUPTI));
        RankTimeline t = b.timeline();
        DispatchLatency d = whole(t).dispatch();
        assertThat(d.crossStream().count()).isEqualTo(1);
        assertThat(d.crossStream().mean()).isEqualTo(30.0);
        assertThat(d.sameStream().count()).isZero();
    }

    @Test
    void queueLengthCountsOperationsFromEnqueueToEnd() {
        RankTimeline t = new TimelineBuilder().launch(1, 0).launch(2, 2)
                .activity(ActivityKind.KERNEL, "k1", 1, 5, 20, 1, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k2", 1, 23, 30, 2, DeviceActivity.UNKNOWN).timeline();
        Window w = new Window("w", Window.Kind.RANGE, -1, 0, 30);
        QueueLength q = QueueLength.of(t, new ClassIntervals(t), w, LaunchLatency.callsByCorrelation(t));
        assertThat(q.basis()).isEqualTo("enqueue");
        assertThat(q.max()).isEqualTo(2);
        // 1 on [0,2), 2 on [2,20), 1 on [20,30) → (2 + 36 + 10) / 30
        assertThat(q.timeWeightedMean()).isCloseTo(48.0 / 30, within(1e-12));
    }

    /**
     * With a pending-launch limit of 2: stream 1 gets k1 (enqueued 0, ends 20) and k2 (enqueued 2, ends 30); k3's
     * launch call starts at 4 while both are pending (2 ≥ 2), so it counts as blocked with its host time clipped to
     * the window: the call lasts 100 ns, [4, 40) is 36 ns. Stream 2's single kernel never sees a full queue. Per stream: stream 1 peaks at 3.
     */
    @Test
    void queueLengthPerStreamCountsLaunchesMadeOnAFullQueue() {
        RankTimeline t = new TimelineBuilder().launch(1, 0).launch(2, 2).launch(3, 4).launch(4, 4)
                .activity(ActivityKind.KERNEL, "k1", 1, 5, 20, 1, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k2", 1, 21, 30, 2, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k3", 1, 31, 35, 3, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k4", 2, 6, 10, 4, DeviceActivity.UNKNOWN).timeline();
        Window w = new Window("w", Window.Kind.RANGE, -1, 0, 40);
        QueueLength q = QueueLength.of(t, new ClassIntervals(t), w, LaunchLatency.callsByCorrelation(t), 2);

        assertThat(q.streams()).extracting(QueueLength.StreamQueue::stream).containsExactly(1L, 2L);
        QueueLength.StreamQueue s1 = q.streams().get(0);
        assertThat(s1.max()).isEqualTo(3);
        assertThat(s1.blockedCalls()).isEqualTo(1);
        assertThat(s1.blockedNs()).isEqualTo(36);
        assertThat(q.streams().get(1).max()).isEqualTo(1);
        assertThat(q.streams().get(1).blockedCalls()).isZero();
        // CUDA's default depth is never reached here
        assertThat(QueueLength.of(t, new ClassIntervals(t), w, LaunchLatency.callsByCorrelation(t)).streams())
                .allSatisfy(s -> assertThat(s.blockedCalls()).isZero());
    }

    @Test
    void stepsAreWindowsAndATraceWithoutThemFallsBackToTheWholeTraceWithAWarning() {
        RankTimeline withSteps = new TimelineBuilder().kernel("k", 1, 0, 10).step(1, 0, 5).step(2, 5, 10).step(2, 5, 10)
                .timeline();
        assertThat(WindowPlanner.windows(withSteps, WindowMode.STEPS, new ArrayList<>())).extracting(Window::label)
                .containsExactly("step 1", "step 2");
        List<String> warnings = new ArrayList<>();
        RankTimeline without = new TimelineBuilder().kernel("k", 1, 3, 10).timeline();
        assertThat(WindowPlanner.windows(without, WindowMode.STEPS, warnings)).singleElement()
                .satisfies(w -> assertThat(w).isEqualTo(new Window("whole", Window.Kind.WHOLE, -1, 3, 10)));
        assertThat(warnings).singleElement().asString().contains("no iteration markers");
    }
}
