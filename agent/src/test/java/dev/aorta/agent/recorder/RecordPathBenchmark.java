package dev.aorta.agent.recorder;

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
 * What {@code HotPathBenchmark.interceptedLaunch} cannot show: at tens of millions of calls a second the
 * drain thread falls behind, the ring fills and most calls take the cheaper drop path. Here the ring never
 * fills (this thread frees it every 4096 records, about 1 ns a record), so every call pays the full record:
 * two clock reads and a 13-field row, as the launch advice writes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class RecordPathBenchmark {
    private static final CallBuffer.RowConsumer IGNORE = (buffer, sequence, rows, offset) -> { };
    CallBuffer buffer;
    long written;

    @Setup
    public void setUp() {
        buffer = new CallBuffer(8192, Thread.currentThread(), 0);
    }

    @Benchmark
    public void recordLaunchRow() {
        long start = HostClock.ticks();
        buffer.put(7, start, HostClock.ticks(), 0x7f00_0000_1000L, 0, 100, 1, 1, 128, 1, 1, 256, 0x7f00_0000_2000L);
        if ((++written & 4095) == 0) {
            buffer.drain(IGNORE);
        }
    }
}
