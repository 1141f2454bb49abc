package dev.aorta.agent.bench;

import dev.aorta.agent.recorder.HostClock;
import example.fakegpu.FakeGpu;
import example.fakegpu.UninterceptedDriver;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
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
 * The agent's hot path: a JCuda-shaped cuLaunchKernel (empty "native") with the agent's advice woven in,
 * against the same method in a class the agent leaves alone. Run by scripts/agent-jmh.sh, which starts
 * the forks with {@code -javaagent:} the shaded jar; the per-call overhead is the difference of the two
 * scores, the allocation per call is {@code gc.alloc.rate.norm} of {@code interceptedLaunch}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class HotPathBenchmark {
    CUfunction function;
    CUstream stream;

    @Setup
    public void setUp() {
        FakeGpu.stopSimulating();
        function = new CUfunction();
        JCudaDriver.cuModuleGetFunction(function, new CUmodule(), "empty");
        stream = new CUstream();
        JCudaDriver.cuStreamCreate(stream, 0);
    }

    @Benchmark
    public int interceptedLaunch() {
        return JCudaDriver.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, null, null);
    }

    /** One clock read per edge with the clock the agent chose (its log says which): the floor of the hot path. */
    @Benchmark
    public long twoHostClockReads() {
        long start = HostClock.ticks();
        return HostClock.ticks() - start;
    }

    /** The same with System.nanoTime, for comparison. */
    @Benchmark
    public long twoClockReads() {
        long start = System.nanoTime();
        return System.nanoTime() - start;
    }

    @Benchmark
    public int uninterceptedLaunch() {
        return UninterceptedDriver.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, null, null);
    }
}
