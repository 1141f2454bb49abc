package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.OpContext;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.WorkloadContext;

import java.util.Map;
import java.util.TreeMap;

/**
 * How a workload reaches the model module's ops: the CUDA device and streams behind the harness's session, and an
 * {@link OpContext} (kernels, a cuBLAS handle with its workspace) per stream that runs ops. One per stream, because
 * GEMMs of one handle running at once on several streams would share its workspace (split-K partial sums) and
 * corrupt each other. The simulated session has no CUDA device, so these workloads say that they need a GPU there.
 */
final class ModelRuntime implements AutoCloseable {
    private final WorkloadContext context;
    private final CudaDevice device;
    private final Map<Integer, OpContext> opsByStream = new TreeMap<>();

    private ModelRuntime(WorkloadContext context, CudaDevice device) {
        this.context = context;
        this.device = device;
    }

    static ModelRuntime open(String workload, WorkloadContext context) {
        CudaDevice device;
        try {
            device = context.gpu().cudaDevice();
        } catch (UnsupportedOperationException e) {
            throw new IllegalStateException(workload + " runs the model module's CUDA ops and needs a GPU: "
                    + e.getMessage());
        }
        return new ModelRuntime(context, device);
    }

    /** The ops of harness stream {@code index}: every layer that runs on that stream is made with these. */
    OpContext ops(int index) {
        return opsByStream.computeIfAbsent(index, i -> new OpContext(device, stream(i)));
    }

    CudaDevice device() {
        return device;
    }

    /** The gpu module's stream behind harness stream {@code index}. */
    Stream stream(int index) {
        return context.gpu().cudaStream(context.streams().get(index));
    }

    Stream stream(GpuStream s) {
        return context.gpu().cudaStream(s);
    }

    @Override
    public void close() {
        opsByStream.values().forEach(OpContext::close);
        opsByStream.clear();
    }
}
