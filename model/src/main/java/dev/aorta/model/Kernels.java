package dev.aorta.model;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.Kernel;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nvrtc.Nvrtc;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The model's CUDA C kernels ({@code /kernels/*.cu} on the class path), compiled by NVRTC for this device on
 * first use (NVRTC caches the cubins on disk) and loaded once per device.
 *
 * <p>Launches are prepared once per kernel, grid, block, stream and parameter count and then reused, only their
 * parameter slots rewritten: a {@link KernelLaunch} holds its parameter array in native memory, and preparing
 * one per launch cost two native allocations (freed later by the garbage collector) on every op of every step.
 * Like the ops, not for concurrent use by several threads (one {@link OpContext} per thread).
 */
public final class Kernels implements AutoCloseable {
    /** Every kernel source of the module; a test compiles each one. */
    public static final List<String> SOURCES = List.of("elementwise.cu", "layernorm.cu", "softmax.cu",
            "embedding.cu", "loss.cu", "adamw.cu", "attention.cu", "attention16.cu", "layout.cu", "convert.cu",
            "gating.cu", "conv.cu");

    private final CudaDevice device;
    private final Map<String, CudaModule> modules = new HashMap<>();
    private final Map<String, Kernel> kernels = new HashMap<>();
    private final LaunchCache<KernelLaunch> launches = new LaunchCache<>();

    public Kernels(CudaDevice device) {
        this.device = device;
    }

    /**
     * The source text of {@code file}, e.g. "layernorm.cu", with each {@code #include "name.cuh"} line replaced by
     * that header from the same folder (NVRTC is given no include path: the helpers that several kernel files
     * share, such as the 16-bit rounding, live once in a header).
     */
    public static String source(String file) {
        String text = Nvrtc.resource(Kernels.class, "/kernels/" + file);
        return INCLUDE.matcher(text).replaceAll(m -> Matcher.quoteReplacement(
                Nvrtc.resource(Kernels.class, "/kernels/" + m.group(1))));
    }

    private static final Pattern INCLUDE = Pattern.compile("(?m)^#include \"([\\w.]+\\.cuh)\"$");

    public synchronized Kernel kernel(String file, String name) {
        return kernels.computeIfAbsent(file + ":" + name, k -> modules.computeIfAbsent(file, f -> device.loadModule(
                Nvrtc.get().compile(source(f), f, device.info().arch()))).kernel(name));
    }

    /**
     * Launches {@code name} of {@code file} on {@code stream}; each argument is a {@link Tensor} (its address),
     * null (a null pointer), Integer, Long or Float, matching the kernel's parameter list.
     */
    public void launch(String file, String name, int grid, int block, Stream stream, Object... args) {
        launch2d(file, name, grid, 1, block, stream, args);
    }

    /** As {@link #launch}, on a two-dimensional grid. */
    public synchronized void launch2d(String file, String name, int gridX, int gridY, int block, Stream stream, Object... args) {
        device.makeCurrent();
        KernelLaunch l = launches.get(file, name, gridX, gridY, block, stream.address(), args.length);
        if (l == null) {
            l = kernel(file, name).prepare(gridX, gridY, 1, block, 1, 1, 0, stream, args.length);
            launches.put(file, name, gridX, gridY, block, stream.address(), args.length, l);
        }
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case null -> l.pointer(i, 0L);
                case Tensor t -> l.pointer(i, t.address());
                case Integer v -> l.intArg(i, v);
                case Long v -> l.longArg(i, v);
                case Float v -> l.floatArg(i, v);
                default -> throw new IllegalArgumentException("kernel " + name + ": argument " + i + " is a "
                        + args[i].getClass().getSimpleName() + "; expected Tensor, Integer, Long or Float");
            }
        }
        l.launch();
    }

    /** A grid for a grid-stride loop over {@code n} elements: enough blocks to fill the GPU, no more than needed. */
    public int gridFor(long n, int block) {
        long needed = (n + block - 1) / block;
        long fill = 8L * device.info().multiprocessors();
        return (int) Math.max(1, Math.min(needed, fill));
    }

    @Override
    public synchronized void close() {
        modules.values().forEach(CudaModule::close);
        modules.clear();
        kernels.clear();
        launches.clear();
    }
}
