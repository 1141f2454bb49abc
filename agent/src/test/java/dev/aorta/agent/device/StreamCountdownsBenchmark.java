package dev.aorta.agent.device;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What sampled event pairs add to a launch that is not sampled: the per-stream countdown, over 16 streams launched in
 * turn (tiny_kernel_stress's shape) with one launch in 100 sampled. {@code nextStreamOnly} is the loop's own cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class StreamCountdownsBenchmark {
    private final long[] streams = new long[16];
    private StreamCountdowns countdowns;
    private int next;

    @Setup
    public void setUp() {
        countdowns = new StreamCountdowns(100);
        for (int i = 0; i < streams.length; i++) {
            streams[i] = 0x7f3a_0000_0000L + 0x1_0000L * i;  // allocation-like addresses: low bits zero
        }
    }

    @Benchmark
    public boolean dueOn16Streams() {
        return countdowns.due(streams[next++ & 15]);
    }

    @Benchmark
    public long nextStreamOnly() {
        return streams[next++ & 15];
    }
}
