package dev.aorta.workloads.harness;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.session.PreparedLaunch;
import dev.aorta.workloads.spi.WorkloadContext;

/**
 * tiny_kernel_stress plus one kernel per iteration launched straight from its prepared launch, past the context's
 * ops, as the model workloads' layers launch through the gpu module: no event pair can bracket it.
 */
final class BypassingWorkload extends TinyKernelStressWrapper {
    private PreparedLaunch direct;

    @Override
    public void setup(WorkloadContext context) {
        inner.setup(context);
        var x = context.randomBuffer(256, DType.FP32, 3);
        var stream = context.streams().getFirst();
        direct = context.kernels("elementwise.cu").prepare("vec_relu", new Dim3(1, 1, 1), new Dim3(256, 1, 1), 0,
                stream, KernelArg.pointer(x), KernelArg.i32(256));
    }

    @Override
    public void runIteration(int iteration) {
        inner.runIteration(iteration);
        direct.launch();
    }
}
