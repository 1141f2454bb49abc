package dev.aorta.workloads.harness;

import dev.aorta.workloads.copy.CopyComputeOverlap;
import dev.aorta.workloads.p0.HeteroKernels;
import dev.aorta.workloads.p0.LargeGemmOnly;
import dev.aorta.workloads.p0.TinyKernelStress;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Launches per iteration, the denominator of host time per launch, are counted by the session as the workload makes
 * its calls: every kernel, GEMM, copy and collective one each, event records and waits none.
 */
class LaunchCountTest {
    private final SimulatedGpuSession gpu = new SimulatedGpuSession();

    private RunResult run(Workload w, HarnessOptions o) {
        return new Harness(Map.of(), false).run(w, o, gpu);
    }

    @Test
    void tinyKernelStressMakesStreamsTimesOpsTimesKernelsPerOpLaunches() {
        RunResult r = run(new TinyKernelStress(), HarnessOptions.defaults(2).withIterations(10, 2)
                .withParams(Map.of("ops_per_stream", "5")));
        RunResult.HostEnqueue h = r.hostEnqueue();
        assertThat(h.launchesPerIteration()).isEqualTo(2 * 5 * 4);
        assertThat(h.launchCountVaried()).isFalse();
        assertThat(h.usPerLaunch()).isCloseTo(h.perIterationMs().mean() * 1e3 / 40, within(1e-9));
        assertThat(h.launchesPerSecond()).isCloseTo(h.iterationsPerSecond() * 40, within(1e-6));
    }

    /** On the simulated device every launch, GEMM and copy leaves one activity record: the two counts agree. */
    @Test
    void theCountEqualsTheDeviceWorkEachIterationLeaves() {
        List<Object[]> cases = List.of(
                new Object[] {new TinyKernelStress(), HarnessOptions.defaults(3).withParams(Map.of("ops_per_stream", "7"))},
                new Object[] {new HeteroKernels(), HarnessOptions.defaults(4).withParams(Map.of("gemm_size", "64"))},
                new Object[] {new LargeGemmOnly(), HarnessOptions.defaults(2).withParams(Map.of("size", "256"))},
                new Object[] {new CopyComputeOverlap(), HarnessOptions.defaults(2)
                        .withParams(Map.of("copy_mib", "1", "matrix", "256"))});
        for (Object[] c : cases) {
            Workload w = (Workload) c[0];
            RunResult r = run(w, ((HarnessOptions) c[1]).withIterations(6, 1).withSyncMode(SyncMode.END_ONLY));
            assertThat(r.hostEnqueue().launchesPerIteration()).as(w.name()).isPositive()
                    .isEqualTo((double) r.kernelTiming().activityCount() / r.kernelTiming().capturedIterations());
            assertThat(r.hostEnqueue().launchCountVaried()).as(w.name()).isFalse();
        }
    }

    @Test
    void iterationsThatEnqueueDifferentWorkGiveTheMeanAndSayThatItVaried() {
        RunResult r = run(new TwiceOnOddIterations(), HarnessOptions.defaults(2).withIterations(10, 2)
                .withParams(Map.of("ops_per_stream", "5")));
        RunResult.HostEnqueue h = r.hostEnqueue();
        assertThat(h.minLaunches()).isEqualTo(40);
        assertThat(h.maxLaunches()).isEqualTo(80);
        assertThat(h.launchesPerIteration()).isEqualTo(60);
        assertThat(h.launchCountVaried()).isTrue();
        assertThat(h.usPerLaunch()).isCloseTo(h.perIterationMs().mean() * 1e3 / 60, within(1e-9));
    }

    @Test
    void withoutWarmupTheEventPairPoolStillCoversEverySampledIteration() {
        gpu.captureUnavailable = "libcupti.so not found";
        RunResult r = run(new TinyKernelStress(), HarnessOptions.defaults(2).withIterations(10, 0)
                .withParams(Map.of("ops_per_stream", "5")));
        assertThat(r.kernelTiming().sourceNote()).doesNotContain("ran out");
        assertThat(r.kernelTiming().activityCount()).isEqualTo(HarnessOptions.DEFAULT_TIMING_SAMPLES * 2 * 5 * 4);
        assertThat(r.hostEnqueue().launchesPerIteration()).isEqualTo(40);
    }

    /**
     * tiny_kernel_stress whose odd iterations enqueue their work twice; every iteration also records an event and
     * makes a stream wait on it, which orders work but is none.
     */
    private static final class TwiceOnOddIterations extends TinyKernelStressWrapper {
        private WorkloadContext context;
        private GpuEvent marker;

        @Override
        public void setup(WorkloadContext c) {
            context = c;
            inner.setup(c);
            marker = c.gpu().createEvent();
        }

        @Override
        public void runIteration(int iteration) {
            inner.runIteration(iteration);
            if (iteration % 2 == 1) {
                inner.runIteration(iteration);
            }
            marker.record(context.streams().get(0));
            context.streams().get(1).waitEvent(marker);
        }

        @Override
        public void cleanup() {
            if (marker != null) {
                marker.close();
            }
            inner.cleanup();
        }

        @Override
        public String name() {
            return "twice_on_odd_iterations";
        }
    }
}
