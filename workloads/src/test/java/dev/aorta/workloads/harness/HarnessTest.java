package dev.aorta.workloads.harness;

import dev.aorta.workloads.FailingWorkload;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.p0.HeteroKernels;
import dev.aorta.workloads.p0.LargeGemmOnly;
import dev.aorta.workloads.p0.TinyKernelStress;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class HarnessTest {
    private final SimulatedGpuSession gpu = new SimulatedGpuSession();

    private static HarnessOptions options(int streams, SyncMode mode) {
        return HarnessOptions.defaults(streams).withSyncMode(mode).withIterations(20, 2);
    }

    private RunResult run(Workload w, HarnessOptions o) {
        Map<String, String> env = new HashMap<>();
        env.put("CUDA_DEVICE_MAX_CONNECTIONS", null);
        return new Harness(env, false).run(w, o, gpu);
    }

    private static HarnessOptions tiny(int streams, SyncMode mode) {
        return options(streams, mode).withParams(Map.of("ops_per_stream", "5"));
    }

    @Test
    void perIterationWaitsForTheDeviceAfterEveryIterationAndEndOnlyOnlyAtTheEnd() {
        run(new TinyKernelStress(), tiny(4, SyncMode.PER_ITERATION));
        int perIterationWaits = gpu.hostWaits;
        gpu.hostWaits = 0;
        run(new TinyKernelStress(), tiny(4, SyncMode.END_ONLY));
        int endOnlyWaits = gpu.hostWaits;
        // setup, end of warmup, end of run and ends of the traced phases are common; per_iteration adds one wait per
        // warmup, measured and traced iteration
        assertThat(perIterationWaits - endOnlyWaits)
                .isEqualTo(2 + 20 + Harness.TRACED_WARMUP + HarnessOptions.DEFAULT_TIMING_SAMPLES);
    }

    @Test
    void endOnlyOverlapsIterationsSoItsTotalTimeIsShorterThanPerIterations() {
        gpu.launchCostNs = 1_000;  // device-bound: kernels take longer than launches
        gpu.smallKernelNs = 4_000;
        RunResult per = run(new TinyKernelStress(), tiny(4, SyncMode.PER_ITERATION));
        RunResult end = run(new TinyKernelStress(), tiny(4, SyncMode.END_ONLY));
        assertThat(end.totalTimeMs()).isLessThan(per.totalTimeMs());
        assertThat(end.iterationTimesMs()).hasSize(20);
        // back to back, iteration times add up to the total
        assertThat(java.util.Arrays.stream(end.iterationTimesMs()).sum()).isCloseTo(end.totalTimeMs(), within(1e-3));
        assertThat(per.latencyMs().mean()).isGreaterThan(0);
    }

    @Test
    void syncModeNoneReportsThroughputButNoLatency() {
        RunResult r = run(new TinyKernelStress(), tiny(2, SyncMode.NONE));
        assertThat(r.latencyMs()).isNull();
        assertThat(r.iterationTimesMs()).isEmpty();
        assertThat(r.throughput().value()).isPositive();
        assertThat(r.hostEnqueue().iterationsPerSecond()).isPositive();
    }

    @Test
    void perIterationLatencyComesFromDeviceEventsNotHostClocks() {
        // simulated: a launch costs the host 3 us, a kernel starts 1 us after it is queued and runs 2 us, so the
        // device waits for the host and the last of the 20 kernels ends 20 x 3 + 1 + 2 us after the start event
        RunResult r = run(new TinyKernelStress(), tiny(1, SyncMode.PER_ITERATION));
        double expectedMs = (20 * 3_000 + 1_000 + 2_000) / 1e6;
        assertThat(r.latencyMs().p50()).isCloseTo(expectedMs, within(1e-6));
        assertThat(r.latencyMs().std()).isCloseTo(0, within(1e-6));
    }

    @Test
    void theMeasuredLoopRunsUntracedThenTheCheckThenTracedWarmupAndTracedIterationsEachNumberedFromZero() {
        PhaseRecordingWorkload w = new PhaseRecordingWorkload();
        run(w, tiny(2, SyncMode.END_ONLY).withIterations(3, 2));
        java.util.List<String> expected = new java.util.ArrayList<>(java.util.List.of("iteration 0", "iteration 1",
                "before measured", "iteration 0", "iteration 1", "iteration 2", "after measured", "check"));
        for (int i = 0; i < Harness.TRACED_WARMUP; i++) {
            expected.add("iteration " + i);
        }
        for (int i = 0; i < HarnessOptions.DEFAULT_TIMING_SAMPLES; i++) {
            expected.add("iteration " + i);
        }
        assertThat(w.calls).containsExactlyElementsOf(expected);
    }

    @Test
    void everyIterationIsMarkedForTheAgent_itsDeviceWaitInside_withPerIterationSync() {
        PhaseRecordingWorkload w = new PhaseRecordingWorkload();
        IterationMarks before = Harness.marks;
        Harness.marks = new IterationMarks() {
            @Override
            public void begin() {
                w.calls.add("begin (device waited " + gpu.hostWaits + ")");
            }

            @Override
            public void end() {
                w.calls.add("end (device waited " + gpu.hostWaits + ")");
            }
        };
        try {
            run(w, tiny(2, SyncMode.PER_ITERATION).withIterations(3, 2));
        } finally {
            Harness.marks = before;
        }
        java.util.List<String> iterations = w.calls.stream().filter(c -> !c.startsWith("before") && !c.startsWith("after")
                && !c.equals("check")).toList();
        int count = 2 + 3 + Harness.TRACED_WARMUP + HarnessOptions.DEFAULT_TIMING_SAMPLES;
        assertThat(iterations).hasSize(3 * count);
        for (int i = 0; i < count; i++) {
            assertThat(iterations.get(3 * i)).startsWith("begin");
            assertThat(iterations.get(3 * i + 1)).startsWith("iteration ");
            assertThat(iterations.get(3 * i + 2)).startsWith("end");
            // per-iteration sync: the iteration's wait for the device lies between its markers
            assertThat(waits(iterations.get(3 * i + 2))).as(iterations.get(3 * i + 2))
                    .isGreaterThan(waits(iterations.get(3 * i)));
        }
    }

    private static int waits(String marker) {
        return Integer.parseInt(marker.replaceAll("\\D", ""));
    }

    @Test
    void theWarmupAndTheAlignmentHookRunUntracedAndOnlyTheTracedIterationsAreKept() {
        RunResult r = run(new AligningWorkload(), tiny(4, SyncMode.END_ONLY));
        assertThat(r.kernelTiming().capturedIterations()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES);
        assertThat(r.kernelTiming().activityCount()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES * 4 * 5 * 4);
        // CUPTI's slow first launches fall in the traced warm-up, whose records are thrown away
        assertThat(gpu.discardedActivities).isEqualTo(Harness.TRACED_WARMUP * 4 * 5 * 4);
        assertThat(r.kernelTiming().sourceNote()).contains("10 traced iterations run after the measured ones")
                .contains("throughput and iteration times are from the untraced loop");
    }

    @Test
    void tracingCostsNeitherTheThroughputNorTheIterationTimes() {
        RunResult untraced = run(new TinyKernelStress(), tiny(4, SyncMode.PER_ITERATION));
        gpu.tracingHostNsPerLaunch = 4_000;  // more than the launch itself: CUPTI on the launch path
        gpu.tracingDeviceGapNs = 5_000;      // 3-7 us between consecutive kernels of a stream in fsdp_tp's trace
        RunResult traced = run(new TinyKernelStress(), tiny(4, SyncMode.PER_ITERATION));
        assertThat(traced.kernelTiming().source()).isEqualTo(TimingSource.CUPTI);
        assertThat(traced.throughput().value()).isEqualTo(untraced.throughput().value());
        assertThat(traced.totalTimeMs()).isEqualTo(untraced.totalTimeMs());
        assertThat(traced.iterationTimesMs()).containsExactly(untraced.iterationTimesMs());
        assertThat(traced.hostEnqueue().launchesPerIteration()).isEqualTo(untraced.hostEnqueue().launchesPerIteration());
        // the traced iterations do show the tracer: every kernel now waits 5 us behind the previous one
        assertThat(traced.kernelTiming().switchOverhead().intraGapsNs().mean())
                .isGreaterThanOrEqualTo(5_000)
                .isGreaterThan(untraced.kernelTiming().switchOverhead().intraGapsNs().mean());
        assertThat(traced.streams()).allSatisfy(s -> assertThat(s.busyMs()).isPositive());
    }

    @Test
    void cuptiTimingCoversEveryKernelOfEveryStreamAndBusyTimesMatchTheKernels() {
        RunResult r = run(new TinyKernelStress(), tiny(4, SyncMode.END_ONLY));
        assertThat(r.kernelTiming().source()).isEqualTo(TimingSource.CUPTI);
        assertThat(r.kernelTiming().activityCount()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES * 4 * 5 * 4);
        assertThat(r.kernelTiming().perIterationWindows()).isTrue();
        assertThat(r.streams()).hasSize(4).allSatisfy(s -> {
            assertThat(s.kernelCount()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES * 5 * 4);
            assertThat(s.busyMs()).isPositive().isCloseTo(s.kernelTimeMs(), within(1e-9));
        });
        assertThat(r.kernelTiming().kernelClasses()).extracting(k -> k.name())
                .containsExactlyInAnyOrder("vec_add", "vec_mul", "vec_relu", "vec_scale");
        assertThat(r.kernelTiming().switchOverhead().interGaps()).isPositive();
        assertThat(r.kernelTiming().dispatchLatency().measured()).isTrue();
    }

    @Test
    void aStreamTheWorkloadNeverLaunchesOnIsIdleWhereEveryLaunchWasTimed() {
        RunResult r = run(new IdlingWorkload(), tiny(4, SyncMode.END_ONLY));
        assertThat(r.idleStreams()).extracting(RunResult.StreamStats::index).containsExactly(3);
        assertThat(RunResult.describe(r.idleStreams())).isEqualTo("stream 3 (compute)");
        assertThat(RunResult.describe(java.util.List.of(new RunResult.StreamStats(1, 0, "input", 7, 0, 0, 0),
                new RunResult.StreamStats(14, 0, "reduce", 8, 0, 0, 0), new RunResult.StreamStats(15, 0, "reduce", 9, 0, 0, 0))))
                .isEqualTo("streams 1 (input), 14, 15 (reduce)");
        assertThat(run(new TinyKernelStress(), tiny(4, SyncMode.END_ONLY)).idleStreams()).isEmpty();

        gpu.captureUnavailable = "libcupti.so not found";
        RunResult unseen = run(new BypassingWorkload(), tiny(2, SyncMode.END_ONLY));
        assertThat(unseen.kernelTiming().untimedLaunches()).isPositive();
        assertThat(unseen.idleStreams()).as("launches went untimed: a stream without records may not be idle").isEmpty();
    }

    @Test
    void withoutCuptiSampledIterationsAreTimedWithEventPairsAndSaySo() {
        gpu.captureUnavailable = "libcupti.so not found";
        RunResult r = run(new TinyKernelStress(), tiny(2, SyncMode.PER_ITERATION));
        assertThat(r.kernelTiming().source()).isEqualTo(TimingSource.EVENT_PAIRS_SAMPLED);
        assertThat(r.kernelTiming().sourceNote()).contains("libcupti.so not found")
                .contains("10 sampled iterations run after the measured ones");
        assertThat(r.kernelTiming().capturedIterations()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES);
        assertThat(r.kernelTiming().activityCount()).isEqualTo(10 * 2 * 5 * 4);
        assertThat(r.activities()).hasSize(10).allSatisfy(w -> assertThat(w).hasSize(2 * 5 * 4));
        assertThat(r.streams()).allSatisfy(s -> assertThat(s.busyMs()).isPositive());
        assertThat(r.kernelTiming().dispatchLatency().measured()).isFalse();
    }

    @Test
    void eventPairsCanBeForcedAndLeaveTheMeasuredIterationsAlone() {
        gpu.eventCostNs = 20_000;  // sampling records two events per op: no measured iteration may pay for them
        RunResult reference = run(new TinyKernelStress(), tiny(2, SyncMode.END_ONLY));  // CUPTI, costing nothing here
        RunResult r = run(new TinyKernelStress(), tiny(2, SyncMode.END_ONLY).withKernelTiming(KernelTimingMode.EVENT_PAIRS));
        assertThat(r.kernelTiming().source()).isEqualTo(TimingSource.EVENT_PAIRS_SAMPLED);
        assertThat(r.kernelTiming().sourceNote()).contains("--kernel-timing event-pairs");
        assertThat(r.streams()).allSatisfy(s -> assertThat(s.busyMs()).isPositive());
        assertThat(r.throughput().value()).isEqualTo(reference.throughput().value());
        assertThat(r.hostEnqueue().perIterationMs().count()).isEqualTo(20);
    }

    @Test
    void launchesThatBypassTheOpsAreCountedAsUntimedUnderEventPairsAndTimedUnderCupti() {
        RunResult cupti = run(new BypassingWorkload(), tiny(2, SyncMode.END_ONLY));
        assertThat(cupti.kernelTiming().untimedLaunches()).isZero();
        assertThat(cupti.kernelTiming().activityCount()).isEqualTo(10 * (2 * 5 * 4 + 1));

        gpu.captureUnavailable = "libcupti.so not found";
        RunResult pairs = run(new BypassingWorkload(), tiny(2, SyncMode.END_ONLY));
        assertThat(pairs.kernelTiming().activityCount()).isEqualTo(10 * 2 * 5 * 4);
        assertThat(pairs.kernelTiming().untimedLaunches()).isEqualTo(10);
        assertThat(pairs.kernelTiming().sourceNote())
                .contains("NOT TIMED: 10 launches of the 10 sampled iterations went past the harness's ops")
                .contains("--kernel-timing cupti");
    }

    @Test
    void cuptiCanBeRequiredAndThenItsAbsenceIsAnError() {
        gpu.captureUnavailable = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
        assertThatThrownBy(() -> run(new TinyKernelStress(),
                tiny(2, SyncMode.END_ONLY).withKernelTiming(KernelTimingMode.CUPTI)))
                .hasMessageContaining("--kernel-timing cupti").hasMessageContaining("INSUFFICIENT_PRIVILEGES");
        assertThat(gpu.liveStreams).isZero();
    }

    @Test
    void theSmallKernelsResultsMatchTheHostReferenceAfterEveryIteration() {
        RunResult tiny = run(new TinyKernelStress(), tiny(3, SyncMode.END_ONLY));
        assertThat(tiny.correctness().checked()).isTrue();
        assertThat(tiny.correctness().problem()).isNull();
        RunResult hetero = run(new HeteroKernels(), options(4, SyncMode.END_ONLY).withParams(Map.of("gemm_size", "64")));
        assertThat(hetero.correctness().problem()).isNull();
    }

    @Test
    void aDeviceThatComputesOneKernelWronglyFailsTheCheck() {
        gpu.miscomputed = "vec_relu";
        RunResult r = run(new TinyKernelStress(), tiny(2, SyncMode.PER_ITERATION));
        assertThat(r.correctness().problem()).startsWith("stream 0 x[").contains("on the device");
    }

    @Test
    void heteroKernelsUsesEveryStreamOfBothRolesAndShowsTheConvoy() {
        HarnessOptions o = options(8, SyncMode.PER_ITERATION).withParams(Map.of("gemm_size", "1024"));
        RunResult r = run(new HeteroKernels(), o);
        assertThat(r.streams()).extracting(RunResult.StreamStats::role)
                .containsExactly("large", "large", "large", "large", "small", "small", "small", "small");
        assertThat(r.streams()).allSatisfy(s -> assertThat(s.kernelCount()).isPositive());
        assertThat(r.streams().get(4).kernelCount()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES * 10);
        var convoy = r.kernelTiming().convoy();
        assertThat(convoy.available()).isTrue();
        // the serial simulated device runs the four GEMMs (43 us each) before any small kernel queued behind them
        assertThat(convoy.behindBlockingUs().count()).isPositive();
        assertThat(convoy.behindBlockingUs().mean()).isGreaterThan(40);
    }

    @Test
    void largeGemmOnlyReportsTflopsAndItsPlainLoopRatio() {
        // 512³ GEMMs (small enough for the simulated device to compute) as long as 2048³ ones at 50 TFLOP/s
        gpu.gemmFlopsPerNs = 50_000.0 / 64;
        HarnessOptions o = options(4, SyncMode.END_ONLY).withParams(Map.of("size", "512")).withDtype(DType.BF16);
        RunResult r = new Harness(Map.of(), true).run(new LargeGemmOnly(), o, gpu);
        assertThat(r.throughput().unit()).isEqualTo("TFLOP/s");
        assertThat(r.throughput().value()).isCloseTo(50.0 / 64, within(0.03));
        assertThat(r.correctness().checked()).isTrue();
        assertThat(r.correctness().problem()).isNull();
        assertThat(r.baselineLoop().ratio()).isCloseTo(1.0, within(0.05));
        assertThat(r.kernelTiming().kernelClasses().getFirst().name()).isEqualTo("sim_gemm_bf16");
    }

    /** Every stream's C, in every storage type, against float64 over the rounded operands; a wrong GEMM is caught. */
    @ParameterizedTest
    @EnumSource(DType.class)
    void largeGemmOnlyChecksEveryStreamsProductAgainstFloat64(DType dtype) {
        HarnessOptions o = options(3, SyncMode.END_ONLY).withIterations(2, 1).withParams(Map.of("size", "96"))
                .withDtype(dtype);
        assertThat(run(new LargeGemmOnly(), o).correctness().problem()).isNull();

        gpu.miscomputed = "sim_gemm_" + dtype.label();   // A transposed
        assertThat(run(new LargeGemmOnly(), o).correctness().problem())
                .startsWith("large_gemm_only stream 0: C[0,0] = ").contains("(float64 over the " + dtype.label() + " operands)");
    }

    @Test
    void mixedPrioritiesPutTheFirstHalfLowAndTheRestHigh() {
        run(new TinyKernelStress(), tiny(4, SyncMode.END_ONLY).withPriorityMode(PriorityMode.MIXED));
        // 4 workload streams then the timing stream (least urgent)
        assertThat(gpu.streamPriorities).containsExactly(0, 0, -5, -5, 0);
    }

    @Test
    void everythingTheRunMadeIsReleased() {
        run(new HeteroKernels(), options(4, SyncMode.END_ONLY).withParams(Map.of("gemm_size", "512")));
        assertThat(gpu.allocatedBytes()).isZero();
        assertThat(gpu.liveEvents).isZero();
        assertThat(gpu.liveStreams).isZero();
        assertThat(gpu.memoryStats().peakAllocatedBytes()).isPositive();
    }

    @Test
    void aFailingIterationStillReleasesEverythingAndPropagates() {
        assertThatThrownBy(() -> run(new FailingWorkload(), options(2, SyncMode.END_ONLY)))
                .hasMessage("boom at " + FailingWorkload.FAIL_AT);
        assertThat(gpu.allocatedBytes()).isZero();
        assertThat(gpu.liveEvents).isZero();
        assertThat(gpu.liveStreams).isZero();
    }

    @Test
    void badOptionsAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> run(new LargeGemmOnly(), options(17, SyncMode.NONE)))
                .hasMessage("--streams 17 is outside the range of large_gemm_only: 1..16 streams");
        assertThatThrownBy(() -> run(new TinyKernelStress(), options(2, SyncMode.NONE).withParams(Map.of("sise", "3"))))
                .hasMessageContaining("--param sise").hasMessageContaining("[kernels_per_op, ops_per_stream, size]");
        assertThatThrownBy(() -> run(new TinyKernelStress(), options(2, SyncMode.NONE).withDtype(DType.BF16)))
                .hasMessageContaining("--dtype");
        assertThatThrownBy(() -> run(new TinyKernelStress(), options(2, SyncMode.NONE).withParams(Map.of("size", "x"))))
                .hasMessageContaining("--param size=x: expected an integer");
        assertThatThrownBy(() -> SyncMode.parse("sometimes")).hasMessageContaining("per_iteration, end_only, none");
        assertThatThrownBy(() -> PriorityMode.parse("urgent")).hasMessageContaining("all-high");
        assertThatThrownBy(() -> DType.parse("fp8")).hasMessageContaining("[fp32, tf32, bf16, fp16]");
    }

    @Test
    void recordsThatDoNotDivideIntoIterationsFormOneWindow() {
        var k = dev.aorta.workloads.metrics.KernelTimelineMetricsTest.kernel("k", 0, 0, 1, -1);
        assertThat(Harness.splitIntoIterations(java.util.List.of(k, k, k), 2)).hasSize(1);
        assertThat(Harness.splitIntoIterations(java.util.List.of(k, k, k, k), 2)).hasSize(2);
    }

    @Test
    void cuptiKernelsAreSplitIntoIterationsByIssueOrder() {
        RunResult r = run(new TinyKernelStress(), tiny(2, SyncMode.END_ONLY));
        assertThat(r.activities()).hasSize(10).allSatisfy(w -> assertThat(w).hasSize(2 * 5 * 4));
    }
}
