package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.OpContext;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.WorkloadContext;

/**
 * How a workload reaches the model module's ops: the CUDA device and streams behind the harness's session, and one
 * {@link OpContext} (kernels, a cuBLAS handle) for the run. The simulated session has no CUDA device, so these
 * workloads say that they need a GPU there.
 */
final class ModelRuntime implements AutoCloseable {
    private final WorkloadContext context;
    private final OpContext ops;

    private ModelRuntime(WorkloadContext context, OpContext ops) {
        this.context = context;
        this.ops = ops;
    }

    static ModelRuntime open(String workload, WorkloadContext context) {
        CudaDevice device;
        try {
            device = context.gpu().cudaDevice();
        } catch (UnsupportedOperationException e) {
            throw new IllegalStateException(workload + " runs the model module's CUDA ops and needs a GPU: "
                    + e.getMessage());
        }
        return new ModelRuntime(context, new OpContext(device, context.gpu().cudaStream(context.streams().getFirst())));
    }

    OpContext ops() {
        return ops;
    }

    CudaDevice device() {
        return ops.device();
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
        ops.close();
    }
}
