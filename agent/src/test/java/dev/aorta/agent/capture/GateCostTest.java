package dev.aorta.agent.capture;

import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.Recorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the advice woven outside windows ({@code between-windows=gated}, and {@code off} where it cannot be taken out),
 * the advice's calls into {@link Recorder} read one flag and return: no clock read, no ring row. Measured without JMH
 * (a warmed-up loop, best of several runs), against the same calls recording; printed for the record, and checked
 * only coarsely so that a busy CI host passes.
 */
class GateCostTest {
    @AfterEach
    void recordingAgain() {
        CaptureGate.open();
    }

    @Test
    void outsideWindowsTheHotPathWritesNothingAndCostsLessThanRecording() {
        CaptureGate.shut();
        long rowsBefore = rows();
        double off = bestNsPerCall(200_000);
        assertThat(rows()).as("no ring rows outside windows").isEqualTo(rowsBefore);
        CaptureGate.open();
        double on = bestNsPerCall(200_000);
        System.out.printf("[gate] between-windows=gated: %.1f ns per intercepted call; recording: %.1f ns%n", off, on);
        assertThat(off).isLessThan(on);
    }

    @Test
    void aCallIsKeptOrDroppedByWhereItBegan() {
        rows();
        CaptureGate.shut();
        long before = Recorder.now();
        CaptureGate.open();  // a window opens while the call runs
        Recorder.record(1, before, 0x10, 0);
        assertThat(rows()).as("begun before the window: dropped, not written without a start").isZero();
        long inside = Recorder.now();
        CaptureGate.shut();  // the window closes while the call runs
        Recorder.record(1, inside, 0x10, 0);
        assertThat(rows()).as("begun inside the window: kept").isEqualTo(1);
    }

    private static long rows() {
        return Recorder.buffers().stream().mapToLong(b -> b.drain((buf, seq, r, o) -> { })).sum();
    }

    private static double bestNsPerCall(int calls) {
        double[] runs = new double[7];
        long sink = 0;
        for (int run = 0; run < runs.length; run++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                long start = Recorder.now();
                Recorder.record(1, start, 0x10, 0, i, 256);
                sink += start;
            }
            runs[run] = (System.nanoTime() - t0) / (double) calls;
            rows();  // keep the ring from filling, outside the timed loop
        }
        assertThat(sink).isNotEqualTo(42);
        return Arrays.stream(runs).min().orElseThrow();
    }
}
