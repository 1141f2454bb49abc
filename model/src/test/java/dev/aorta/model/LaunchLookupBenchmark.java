package dev.aorta.model;

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

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Java side of the trainer's host cost per call, without a GPU (run by scripts/model-jmh.sh, with
 * {@code -prof gc} for the bytes per call): finding a prepared kernel launch, and the message a GEMM call built
 * for an error it almost never had.
 *
 * <p>{@code lookupBefore} is what {@link Kernels#launch2d} did up to this change: concatenate "file:name", look
 * the kernel up by it, then the launch by a key holding the kernel. {@code lookupNow} is {@link LaunchCache} as
 * Kernels uses it. Both walk the same 32 launch shapes (the default config's step prepares about that many) in
 * turn. {@code gemmMessageBefore} is the string each cuBLAS(Lt) GEMM built before calling its status check, now
 * built only when the status is an error.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LaunchLookupBenchmark {
    private static final String[] FILES = {"elementwise.cu", "layernorm.cu", "softmax.cu", "attention16.cu",
            "adamw.cu", "convert.cu", "loss.cu", "embedding.cu"};
    private static final String[] NAMES = {"bias_gelu_forward", "layernorm_forward_rows", "dropout_forward",
            "attention16_forward"};
    private static final int SHAPES = 32;

    /** Stands for the loaded kernel the old key held. */
    private record Kernel(String name) {
    }

    private record OldKey(Kernel kernel, int gridX, int gridY, int block, long stream, int parameters) {
    }

    private final String[] files = new String[SHAPES];
    private final String[] names = new String[SHAPES];
    private final int[] grids = new int[SHAPES];
    private final Map<String, Kernel> kernelsBefore = new HashMap<>();
    private final Map<OldKey, Object> launchesBefore = new HashMap<>();
    private final LaunchCache<Object> launchesNow = new LaunchCache<>();
    private int next;

    @Setup
    public void setUp() {
        for (int i = 0; i < SHAPES; i++) {
            files[i] = FILES[i % FILES.length];
            names[i] = NAMES[i % NAMES.length];
            grids[i] = 132 * (1 + i / 8);
            Object prepared = new Object();
            Kernel k = kernelsBefore.computeIfAbsent(files[i] + ":" + names[i], Kernel::new);
            launchesBefore.put(new OldKey(k, grids[i], 1, 256, 0x7f00L, 6), prepared);
            launchesNow.put(files[i], names[i], grids[i], 1, 256, 0x7f00L, 6, prepared);
        }
    }

    private int nextShape() {
        int i = next;
        next = i + 1 == SHAPES ? 0 : i + 1;
        return i;
    }

    @Benchmark
    public Object lookupBefore() {
        int i = nextShape();
        Kernel k = kernelsBefore.computeIfAbsent(files[i] + ":" + names[i], Kernel::new);
        return launchesBefore.computeIfAbsent(new OldKey(k, grids[i], 1, 256, 0x7f00L, 6), key -> new Object());
    }

    @Benchmark
    public Object lookupNow() {
        int i = nextShape();
        return launchesNow.get(files[i], names[i], grids[i], 1, 256, 0x7f00L, 6);
    }

    /** CublasLt's "cublasLtMatmul(" + describe(key) + ")" for a typical key of the default config. */
    @Benchmark
    public String gemmMessageBefore() {
        int i = nextShape();
        Object ab = "BF16";
        Object cd = "FP32";
        Object epilogue = "GELU_AUX_BIAS";
        return "cublasLtMatmul(" + (ab + " x " + ab + " -> " + cd + ", " + (i % 2 == 0 ? "T" : "N") + "N" + " "
                + grids[i] + "x" + 512 + "x" + 768 + ", epilogue " + epilogue) + ")";
    }
}
