package dev.aorta.model;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The Java side of one kernel launch as the model's ops make it, over a fake driver (src/test/native/fakecuda.c,
 * whose every call returns at once; scripts/model-jmh.sh builds it and points the JVM at it): what the host
 * spends per launch before the real driver's own cost. {@code opLaunch} is an op's call ({@code gelu_backward}:
 * three tensors and a long), {@code makeCurrent} the JCuda call each launch makes first, {@code preparedLaunch}
 * the floor: the parameter slots written and one FFM downcall.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LaunchPathBenchmark {
    private CudaDevice device;
    private Stream stream;
    private Kernels kernels;
    private Tensor x;
    private Tensor dy;
    private Tensor dx;
    private KernelLaunch prepared;

    @Setup
    public void setUp() {
        device = CudaDevice.open(0);
        stream = device.createStream(0, false);
        kernels = new Kernels(device);
        x = Tensor.empty(device, "bench", "x", DType.FP32, 8, 64, 3072);
        dy = Tensor.empty(device, "bench", "dy", DType.FP32, 8, 64, 3072);
        dx = Tensor.empty(device, "bench", "dx", DType.FP32, 8, 64, 3072);
        prepared = kernels.kernel("elementwise.cu", "gelu_backward").prepare(1056, 1, 1, 256, 1, 1, 0, stream, 4);
    }

    @TearDown
    public void tearDown() {
        kernels.close();
        stream.close();
        device.close();
    }

    @Benchmark
    public void opLaunch() {
        kernels.launch("elementwise.cu", "gelu_backward", 1056, 256, stream, x, dy, dx, x.numel());
    }

    @Benchmark
    public void makeCurrent() {
        device.makeCurrent();
    }

    @Benchmark
    public void preparedLaunch() {
        prepared.pointer(0, x.address()).pointer(1, dy.address()).pointer(2, dx.address()).longArg(3, x.numel());
        prepared.launch();
    }
}
