package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.ApiStatistics;
import dev.aorta.core.metric.CopyBandwidth;
import dev.aorta.core.metric.IdleTimeBreakdown;
import dev.aorta.core.metric.KernelLaunchStatistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Idle time by cause, API statistics, kernel launch statistics and copy bandwidth on timelines worked out by hand. */
class BreakdownsTest {

    private static Breakdowns whole(RankTimeline t) {
        return RankAnalysis.analyze(t, new AnalysisOptions(WindowMode.WHOLE, ActivityClassifier.defaults(), 5,
                Analyses.NONE), new ArrayList<>()).get(0).breakdowns();
    }

    /**
     * Stream 1, launch calls 100 ns long: k1 [200,300) launched at 0; k2 [310,400) launched at 50; k3 [500,600)
     * launched at 450; k4 [700,800) launched at 100.
     */
    private static TimelineBuilder fourKernels() {
        return new TimelineBuilder().launch(1, 0).launch(2, 50).launch(3, 450).launch(4, 100)
                .activity(ActivityKind.KERNEL, "k1", 1, 200, 300, 1, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k2", 1, 310, 400, 2, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k3", 1, 500, 600, 3, DeviceActivity.UNKNOWN)
                .activity(ActivityKind.KERNEL, "k4", 1, 700, 800, 4, DeviceActivity.UNKNOWN);
    }

    @Test
    void eachIdleGapOfAStreamHasOneCauseDecidedByTheNextKernel() {
        // [300,310): k2 was launched (50) before the stream went idle and the gap is under 30 ns → kernel wait;
        // [400,500): k3 was launched (450) after the stream went idle → host wait;
        // [600,700): k4 was launched long before (100) and still waited 100 ns → other
        List<Breakdowns.StreamIdle> idle = whole(fourKernels().timeline()).idle();
        assertThat(idle).hasSize(1);
        assertThat(idle.get(0).breakdown()).isEqualTo(new IdleTimeBreakdown(1, 100, 10, 100, 1, 1, 1));
        assertThat(idle.get(0).breakdown().idleNs()).isEqualTo(210);
    }

    @Test
    void idleGapsAreClippedToTheWindow() {
        RankTimeline t = fourKernels().timeline();
        Window w = new Window("w", Window.Kind.RANGE, -1, 350, 650);
        Breakdowns b = Breakdowns.of(t, new ClassIntervals(t), w, new Breakdowns.Inputs(t,
                RankAnalysis.enqueueTimes(t, LaunchLatency.callsByCorrelation(t)), LaunchLatency.callsByCorrelation(t)), 5);
        // the host wait [400,500) lies inside; the other-gap [600,700) is cut to [600,650)
        assertThat(b.idle().get(0).breakdown()).isEqualTo(new IdleTimeBreakdown(1, 100, 0, 50, 1, 0, 1));
    }

    @Test
    void overlappingActivitiesOfAStreamLeaveNoGapAndAGapWithoutEnqueueTimeIsOther() {
        // a [0,100) and b [20,50) overlap; c [80,200) starts before a ends: no gap. d [300,400) has no launch call
        RankTimeline t = new TimelineBuilder().kernel("a", 1, 0, 100).kernel("b", 1, 20, 50).kernel("c", 1, 80, 200)
                .kernel("d", 1, 300, 400).timeline();
        assertThat(whole(t).idle().get(0).breakdown()).isEqualTo(new IdleTimeBreakdown(1, 0, 0, 100, 0, 0, 1));
    }

    @Test
    void apiCallsAreGroupedByNameMostTotalTimeFirstAndTheWholeTraceHasThemAll() {
        // the whole trace is the span of device activity, [200,800); the calls before it still count
        TimelineBuilder b = fourKernels();
        b.trace().apiCalls().add(new ApiCall("cudaMemcpyAsync", 1, 0, 600, 1_100, 0, 0, Map.of(), ClockDomain.CUPTI));
        Breakdowns r = whole(b.timeline());
        assertThat(r.apiCallNames()).isEqualTo(2);
        ApiStatistics.Entry memcpy = r.apiCalls().get(0);
        ApiStatistics.Entry launch = r.apiCalls().get(1);
        assertThat(memcpy.name()).isEqualTo("cudaMemcpyAsync");
        assertThat(memcpy.totalNs()).isEqualTo(500);
        assertThat(launch.name()).isEqualTo("cuLaunchKernel");
        assertThat(launch.count()).isEqualTo(4);
        assertThat(launch.totalNs()).isEqualTo(400);
        assertThat(launch.share()).isEqualTo(400.0 / 900);
        RankTimeline t = b.timeline();
        Breakdowns step = Breakdowns.of(t, new ClassIntervals(t), new Window("step 1", Window.Kind.STEP, 1, 0, 500),
                new Breakdowns.Inputs(t, RankAnalysis.enqueueTimes(t, LaunchLatency.callsByCorrelation(t)),
                        LaunchLatency.callsByCorrelation(t)), 5);
        assertThat(step.apiCalls()).as("a step has the calls starting in it: launches at 0, 50, 100 and 450")
                .singleElement().satisfies(e -> assertThat(e.count()).isEqualTo(4));
    }

    @Test
    void kernelLaunchStatisticsPairEachKernelWithItsLaunchCall() {
        // cpu 100 each; gpu 100, 90, 100, 100; delay = start − call end: 100, 160, −50, 500
        KernelLaunchStatistics k = whole(fourKernels().timeline()).launches();
        assertThat(k.launches()).isEqualTo(4);
        assertThat(k.cpuDurationNs().mean()).isEqualTo(100.0);
        assertThat(k.gpuDurationNs().min()).isEqualTo(90.0);
        assertThat(k.launchDelayNs().min()).isEqualTo(-50.0);
        assertThat(k.launchDelayNs().max()).isEqualTo(500.0);
        assertThat(k.launchDelayNs().mean()).isEqualTo((100 + 160 - 50 + 500) / 4.0);
        assertThat(k.shortKernels()).isEqualTo(1); // k2: 90 ns on the device, 100 ns to launch
        assertThat(k.runtimeOutliers()).isZero();
        assertThat(k.launchDelayOutliers()).isZero();
    }

    @Test
    void aSlowLaunchCallAndALateStartAreOutliers() {
        // call [0, 60 µs) is over the 50 µs runtime cutoff; the kernel starts 140 µs after it returned (> 100 µs)
        TimelineBuilder b = new TimelineBuilder()
                .activity(ActivityKind.KERNEL, "k", 1, 200_000, 210_000, 9, DeviceActivity.UNKNOWN);
        b.trace().apiCalls().add(new ApiCall("cudaLaunchKernel", 1, 0, 0, 60_000, 9, 0, Map.of(), ClockDomain.CUPTI));
        KernelLaunchStatistics k = whole(b.timeline()).launches();
        assertThat(k.runtimeOutliers()).isEqualTo(1);
        assertThat(k.launchDelayOutliers()).isEqualTo(1);
        assertThat(k.shortKernels()).isEqualTo(1);
    }

    @Test
    void copyBandwidthIsBytesOverCopyTimePerDirection() {
        TimelineBuilder b = new TimelineBuilder();
        b.trace().activities().add(copy("Memcpy HtoD (Pageable -> Device)", 0, 100, 1_000));
        b.trace().activities().add(copy("Memcpy HtoD (Pageable -> Device)", 200, 300, 3_000));
        b.trace().activities().add(copy("MEMORY_COPY_DEVICE_TO_HOST", 400, 500, 0));
        List<CopyBandwidth> copies = whole(b.timeline()).copies();
        assertThat(copies).extracting(c -> c.direction().label()).containsExactly("HtoD", "DtoH");
        CopyBandwidth h2d = copies.get(0);
        assertThat(h2d.copies()).isEqualTo(2);
        assertThat(h2d.bytes()).isEqualTo(4_000);
        assertThat(h2d.gbps()).isEqualTo(20.0); // 4000 B in 200 ns; per copy 10 and 30 GB/s
        assertThat(h2d.perCopyGbps().p50()).isEqualTo(20.0);
        assertThat(h2d.perCopyGbps().max()).isEqualTo(30.0);
        assertThat(copies.get(1).unsized()).isEqualTo(1);
        assertThat(copies.get(1).gbps()).as("no sized copy: undefined, not 0").isNull();
    }

    private static DeviceActivity copy(String name, long start, long end, long bytes) {
        return new DeviceActivity(ActivityKind.MEMCPY, name, 0, 0, 3, start, end, 0, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, bytes, ClockDomain.CUPTI);
    }
}
