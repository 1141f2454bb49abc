package dev.aorta.agent.pipeline;

import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.TestRings;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The drain thread's cost per call record: {@value #BATCH} launch rows published into a ring, then drained,
 * decoded and written as JSONL lines (to /dev/null, so that the disk is not measured). {@code fillOnly} is the
 * publishing alone, to subtract. The lines are formatted on the JSONL sink's writer thread: a benchmark thread that
 * outruns it waits for room in the writer's ring, and that wait counts here. Run by scripts/agent-jmh.sh; {@code gc.alloc.rate.norm} of {@code drainToJsonl}
 * is the bytes allocated per drained record (the JSONL sink alone: metrics and JFR sinks need objects).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class DrainBenchmark {
    static final int BATCH = 1024;

    private CallBuffer ring;
    private CallDecoder decoder;
    private Fanout sinks;
    private int id;
    private long clock;

    @Setup
    public void setUp() throws IOException {
        id = CallTable.register(Interception.of("bench.Driver", "cuLaunchKernel", 11, CallKind.LAUNCH, Object.class));
        ring = TestRings.ring(BATCH);
        sinks = new Fanout(List.of(new GuardedSink("jsonl", new JsonlSink(Path.of("/dev/null")))));
        CorrelationJoin join = new CorrelationJoin(sinks, new CuptiCoverage());
        decoder = new CallDecoder(sinks, join::api, stream -> { }, new IterationTracker(sinks, 0),
                EnumSet.allOf(Category.class));
    }

    @TearDown
    public void tearDown() {
        sinks.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int drainToJsonl() {
        fill();
        int n = ring.drain(decoder);
        sinks.flush();
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int fillOnly() {
        fill();
        return ring.drain((b, s, rows, o) -> { });
    }

    private void fill() {
        for (int i = 0; i < BATCH; i++) {
            long start = clock += 1_000;
            TestRings.put(ring, id, start, start + 700, 0x7f00_0000_1000L, 0,
                    100, 1, 1, 128, 1, 1, 256, 0x7f00_0000_2000L);
        }
    }
}
