package dev.aorta.workloads.harness;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.session.KernelModule;
import dev.aorta.workloads.session.PreparedGemm;
import dev.aorta.workloads.session.PreparedLaunch;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** The harness's side of {@link WorkloadContext}: owns the buffers and kernel modules of one run. */
final class HarnessContext implements WorkloadContext, AutoCloseable {
    private static final int FILL_BLOCK = 256;
    private static final int FILL_MAX_BLOCKS = 4096;

    private final GpuSession gpu;
    private final List<GpuStream> streams;
    private final List<String> roles;
    private final HarnessOptions options;
    private final Map<String, WorkloadParameter> parameters = new HashMap<>();
    private final Map<String, KernelModule> modules = new HashMap<>();
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private EventPairSampler sampler;

    HarnessContext(GpuSession gpu, List<GpuStream> streams, List<String> roles, HarnessOptions options,
                   Workload workload) {
        this.gpu = gpu;
        this.streams = List.copyOf(streams);
        this.roles = List.copyOf(roles);
        this.options = options;
        workload.parameters().forEach(p -> parameters.put(p.name(), p));
    }

    void setSampler(EventPairSampler sampler) {
        this.sampler = sampler;
    }

    @Override
    public GpuSession gpu() {
        return gpu;
    }

    @Override
    public List<GpuStream> streams() {
        return streams;
    }

    @Override
    public DType dtype() {
        return options.dtype();
    }

    @Override
    public int intParameter(String name) {
        WorkloadParameter p = parameters.get(name);
        if (p == null) {
            throw new IllegalStateException("the workload asked for an undeclared parameter '" + name + "'");
        }
        return p.parse(options.params().getOrDefault(name, p.defaultValue()));
    }

    @Override
    public String choiceParameter(String name) {
        WorkloadParameter p = parameters.get(name);
        if (p == null) {
            throw new IllegalStateException("the workload asked for an undeclared parameter '" + name + "'");
        }
        return p.parseChoice(options.params().getOrDefault(name, p.defaultValue()));
    }

    static String readKernelSource(String resource) {
        // the context class loader also sees the jars of the plugins folder: a workload plugin ships its kernels
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ClassLoader loader = context != null ? context : HarnessContext.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream("kernels/" + resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no kernel source kernels/" + resource + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("reading kernels/" + resource + ": " + e.getMessage(), e);
        }
    }

    @Override
    public KernelModule kernels(String resource) {
        return modules.computeIfAbsent(resource, r -> gpu.loadModule(r, WorkloadKernels.has(r) ? WorkloadKernels.source(r)
                : readKernelSource(r)));
    }

    @Override
    public GpuBuffer allocate(long bytes) {
        GpuBuffer b = gpu.allocate(bytes);
        buffers.add(b);
        return b;
    }

    @Override
    public GpuBuffer randomBuffer(long elements, DType dtype, int seed) {
        GpuBuffer buffer = allocate(elements * dtype.bytes());
        String function = switch (dtype) {
            case FP32, TF32 -> "fill_uniform_f32";
            case BF16 -> "fill_uniform_bf16";
            case FP16 -> "fill_uniform_f16";
        };
        int blocks = (int) Math.min(FILL_MAX_BLOCKS, (elements + FILL_BLOCK - 1) / FILL_BLOCK);
        GpuStream stream = streams.getFirst();
        kernels("fill.cu").prepare(function, new Dim3(blocks, 1, 1), new Dim3(FILL_BLOCK, 1, 1), 0, stream,
                KernelArg.pointer(buffer), KernelArg.i64(elements), KernelArg.i32(seed)).launch();
        return buffer;
    }

    @Override
    public Op op(String label, GpuStream stream, PreparedLaunch launch) {
        return new TrackedOp(label, stream, launch::launch);
    }

    @Override
    public Op op(String label, GpuStream stream, PreparedGemm gemm) {
        return new TrackedOp(label, stream, gemm::launch);
    }

    @Override
    public Op enqueueOp(String label, GpuStream stream, Runnable enqueue) {
        return new TrackedOp(label, stream, enqueue);
    }

    @Override
    public List<Integer> streamsWithRole(String role) {
        return IntStream.range(0, roles.size()).filter(i -> roles.get(i).equals(role)).boxed().toList();
    }

    /** An op that goes through the event-pair sampler while it samples, straight to the driver otherwise. */
    private final class TrackedOp implements Op {
        private final String label;
        private final GpuStream stream;
        private final Runnable launch;

        TrackedOp(String label, GpuStream stream, Runnable launch) {
            this.label = label;
            this.stream = stream;
            this.launch = launch;
        }

        @Override
        public void run() {
            EventPairSampler s = sampler;
            if (s != null && s.active()) {
                s.around(label, stream, launch);
            } else {
                launch.run();
            }
        }
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (GpuBuffer b : buffers) {
            try {
                b.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        buffers.clear();
        if (first != null) {
            throw first;
        }
    }
}
