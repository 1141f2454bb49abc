package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ApiCall;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Steps are measured on the device's time: a kernel belongs to the step whose host call launched it. */
class DeviceStepsTest {

    /** Host steps [0,100) and [100,200); each launches two kernels that run 150 ns after their launch. */
    private static TimelineBuilder lagging() {
        return new TimelineBuilder()
                .step(1, 0, 100).step(2, 100, 200)
                .launch(1, 10).activity(ActivityKind.KERNEL, "gemm", 7, 160, 190, 1, DeviceActivity.UNKNOWN)
                .launch(2, 60).activity(ActivityKind.KERNEL, "gemm", 7, 190, 240, 2, DeviceActivity.UNKNOWN)
                .launch(3, 110).activity(ActivityKind.KERNEL, "gemm", 7, 240, 280, 3, DeviceActivity.UNKNOWN)
                .launch(4, 150).activity(ActivityKind.KERNEL, "ncclDevKernel_AllReduce", 8, 250, 330, 4,
                        DeviceActivity.UNKNOWN);
    }

    @Test
    void aStepWindowRunsFromTheFirstToTheLastKernelItsHostCallsLaunched() {
        List<Window> steps = WindowPlanner.windows(lagging().timeline(), WindowMode.STEPS, new ArrayList<>());
        assertThat(steps).extracting(Window::label, Window::startNs, Window::endNs, Window::basis)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("step 1", 160L, 240L, Window.Basis.DEVICE),
                        org.assertj.core.groups.Tuple.tuple("step 2", 240L, 330L, Window.Basis.DEVICE));
        assertThat(steps.get(0).hostStartNs()).isZero();
        assertThat(steps.get(0).hostEndNs()).isEqualTo(100);
    }

    @Test
    void everyKernelOfAStepLiesInsideItsWindowAndNoDeviceTimeIsInNoStep() {
        RankTimeline t = lagging().timeline();
        List<StepCoverage> coverage = new ArrayList<>();
        List<WindowReport> reports = RankAnalysis.analyze(t, new AnalysisOptions(WindowMode.STEPS,
                ActivityClassifier.defaults(), 5), new ArrayList<>(), coverage);
        // on host ranges step 1 would hold no kernel at all and step 2 only 0 ns of the 170 ns busy time
        assertThat(reports).extracting(r -> r.overlap().busyNs()).containsExactly(80L, 90L);
        assertThat(coverage).singleElement().satisfies(c -> {
            assertThat(c.busyNs()).isEqualTo(170);
            assertThat(c.inNoStepNs()).isZero();
        });
    }

    @Test
    void deviceWorkLaunchedOutsideEveryStepIsCountedAsInNoStep() {
        RankTimeline t = lagging().launch(5, 250).activity(ActivityKind.KERNEL, "tail", 7, 400, 450, 5,
                DeviceActivity.UNKNOWN).timeline();
        List<StepCoverage> coverage = new ArrayList<>();
        RankAnalysis.analyze(t, new AnalysisOptions(WindowMode.STEPS, ActivityClassifier.defaults(), 5),
                new ArrayList<>(), coverage);
        assertThat(coverage).singleElement().satisfies(c -> {
            assertThat(c.busyNs()).isEqualTo(220);
            assertThat(c.inNoStepNs()).isEqualTo(50);
            assertThat(c.inNoStepFraction()).isEqualTo(50.0 / 220);
        });
    }

    @Test
    void aStepThatLaunchedNoDeviceWorkKeepsItsHostRangeAndSaysSo() {
        RankTimeline t = lagging().step(3, 200, 300).launch(9, 210).timeline();
        List<Window> steps = WindowPlanner.windows(t, WindowMode.STEPS, new ArrayList<>());
        assertThat(steps.get(2)).satisfies(w -> {
            assertThat(w.basis()).isEqualTo(Window.Basis.HOST_NO_DEVICE_WORK);
            assertThat(w.startNs()).isEqualTo(200);
            assertThat(w.endNs()).isEqualTo(300);
        });
    }

    @Test
    void withoutCorrelationStepsAreTheHostRangesWithAWarning() {
        RankTimeline t = new TimelineBuilder().step(1, 0, 100).kernel("k", 1, 150, 190).timeline();
        List<String> warnings = new ArrayList<>();
        assertThat(WindowPlanner.windows(t, WindowMode.STEPS, warnings)).singleElement().satisfies(w -> {
            assertThat(w.basis()).isEqualTo(Window.Basis.HOST_UNLINKED);
            assertThat(w.endNs()).isEqualTo(100);
        });
        assertThat(warnings).singleElement().asString().contains("links to the host call that launched it");
    }

    /** The A100 all-reduce trace of HTA (its steps synchronize, so here the device work ends within the host step). */
    @Test
    void onARealTraceEveryKernelLaunchedInAStepLiesInsideThatStepsWindow() throws java.io.IOException {
        TraceSet set = TraceLoader.withInstalledReaders()
                .load(List.of(Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz")));
        RankTimeline t = new RankTimeline(set.ranks().iterator().next(), ActivityClassifier.defaults());
        CallsByCorrelation calls = LaunchLatency.callsByCorrelation(t);
        List<Window> steps = WindowPlanner.windows(t, WindowMode.STEPS, new ArrayList<>());
        assertThat(steps).hasSize(3).allSatisfy(w -> assertThat(w.basis()).isEqualTo(Window.Basis.DEVICE));
        int checked = 0;
        for (DeviceActivity a : t.activities()) {
            ApiCall call = calls.get(a.correlationId());
            if (call == null) {
                continue;
            }
            for (Window w : steps) {
                if (call.startNs() >= w.hostStartNs() && call.startNs() < w.hostEndNs()) {
                    assertThat(a.startNs()).isGreaterThanOrEqualTo(w.startNs());
                    assertThat(a.endNs()).isLessThanOrEqualTo(w.endNs());
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(100);
    }
}
