package dev.aorta.agent.device;

import example.fakegpu.FakeGpu;
import jcuda.Handles;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the agent adds to a sampled launch on the launching thread (the launch path's own work around five driver
 * calls that the JCuda double makes empty), while a drain thread polls the sampler all the time, as the agent's
 * does: {@code launchPath} is the sampled launch, {@code drain} one poll. Allocation per sample is checked per thread
 * by EventPairSamplerTest (the group's gc profile mixes in the drain's records).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class EventPairSamplerBenchmark {
    private EventPairSampler sampler;
    private long stream;
    private final LongAdder delivered = new LongAdder();

    @Setup
    public void setUp() {
        sampler = EventPairSampler.install(1, 0, a -> delivered.increment());
        CUstream s = new CUstream();
        JCudaDriver.cuStreamCreate(s, 0);
        stream = Handles.address(s);
        EventPairSampler.after(EventPairSampler.before(stream), stream, 0x40, 1, 1, true); // the context's set-up
        FakeGpu.stopSimulating();
    }

    @TearDown
    public void tearDown() {
        sampler.stop();
        if (delivered.sum() == 0) {
            throw new IllegalStateException("no sample was delivered: the benchmark measured nothing");
        }
    }

    @Benchmark
    @Group("sampled")
    @GroupThreads(1)
    public int launchPath() {
        int sample = EventPairSampler.before(stream);
        EventPairSampler.after(sample, stream, 0x40, 1, 1, true);
        return sample;
    }

    @Benchmark
    @Group("sampled")
    @GroupThreads(1)
    public void drain() {
        sampler.poll();
    }
}
