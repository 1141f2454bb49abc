package dev.aorta.analyzer.diff;

import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The diff of two traces by name, per rank-iteration, on traces worked out by hand. */
class TraceDiffTest {

    private static void kernel(TraceSet set, String name, long start, long duration) {
        set.rank(0).activities().add(new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, 7, start, start + duration, 0,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI));
    }

    private static void step(TraceSet set, long step) {
        set.rank(0).markers().add(new Marker(Marker.Kind.ITERATION, "ProfilerStep#" + step, 0, step, step * 1000,
                step * 1000 + 999, ClockDomain.CUPTI));
    }

    @Test
    void namesAreComparedPerRankIterationWithNewAndVanishedApart() {
        // A: 2 steps, gemm 4 x 10 ns, relu 2 x 5 ns; B: 1 step, gemm 2 x 8 ns, softmax 1 x 3 ns
        TraceSet a = new TraceSet();
        step(a, 1);
        step(a, 2);
        for (int i = 0; i < 4; i++) {
            kernel(a, "gemm", i * 100, 10);
        }
        kernel(a, "relu", 500, 5);
        kernel(a, "relu", 600, 5);
        a.rank(0).apiCalls().add(new ApiCall("cudaLaunchKernel", 1, 0, 0, 40, 1, 0, Map.of(), ClockDomain.CUPTI));
        TraceSet b = new TraceSet();
        step(b, 1);
        kernel(b, "gemm", 0, 8);
        kernel(b, "gemm", 100, 8);
        kernel(b, "softmax", 200, 3);

        TraceDiff d = TraceDiff.of(a, b);
        assertThat(d.a().divisor()).isEqualTo(2);
        assertThat(d.b().divisor()).isEqualTo(1);
        TraceDiff.Names k = d.kernels();
        // per rank-iteration: gemm 2 x, 20 ns → 2 x, 16 ns; relu 1 x, 5 ns → gone; softmax new, 3 ns
        assertThat(k.rows()).extracting(TraceDiff.Row::name).containsExactly("relu", "gemm", "softmax");
        TraceDiff.Row gemm = k.rows().get(1);
        assertThat(gemm.countA()).isEqualTo(2.0);
        assertThat(gemm.countB()).isEqualTo(2.0);
        assertThat(gemm.deltaNs()).isEqualTo(-4.0);
        assertThat(k.vanished()).extracting(TraceDiff.Row::name).containsExactly("relu");
        assertThat(k.added()).extracting(TraceDiff.Row::name).containsExactly("softmax");
        assertThat(k.shared()).isEqualTo(1);
        assertThat(k.sharedTimeA()).isCloseTo(20.0 / 25, within(1e-12));
        assertThat(k.sharedTimeB()).isCloseTo(16.0 / 19, within(1e-12));
        assertThat(d.littleInCommon()).isFalse();
        assertThat(d.calls().vanished()).extracting(TraceDiff.Row::name).containsExactly("cudaLaunchKernel");
    }

    @Test
    void tracesSharingLittleKernelTimeHaveLittleInCommon() {
        // the one shared name carries 1 of A's 101 ns: under a quarter
        TraceSet a = new TraceSet();
        kernel(a, "conv", 0, 100);
        kernel(a, "memcpy_kernel", 200, 1);
        TraceSet b = new TraceSet();
        kernel(b, "attention", 0, 100);
        kernel(b, "memcpy_kernel", 200, 1);
        TraceDiff d = TraceDiff.of(a, b);
        assertThat(d.a().divisor()).as("no iterations: per rank").isEqualTo(1);
        assertThat(d.kernels().sharedTimeA()).isCloseTo(1.0 / 101, within(1e-12));
        assertThat(d.littleInCommon()).isTrue();
    }
}
