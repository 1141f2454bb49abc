package dev.aorta.workloads.p0;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.gpu.DeviceBuffer;
import dev.aorta.workloads.gpu.GpuStream;
import dev.aorta.workloads.gpu.KernelArg;
import dev.aorta.workloads.gpu.KernelModule;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.WorkloadContext;

/**
 * The small 1-D kernels of kernels/elementwise.cu, prepared on one stream over two buffers of
 * {@code size} floats: op k is add, mul, relu, scale for k = 0, 1, 2, 3, then round again.
 */
final class ElementwiseOps {
    static final String SOURCE = "elementwise.cu";
    static final int BLOCK = 256;
    private static final String[] KERNELS = {"vec_add", "vec_mul", "vec_relu", "vec_scale"};

    private ElementwiseOps() {
    }

    /** {@code count} prepared ops cycling through the four kernels, on {@code x} (in place) and {@code y}. */
    static Op[] prepare(WorkloadContext context, GpuStream stream, DeviceBuffer x, DeviceBuffer y, int size,
                        int count) {
        KernelModule module = context.kernels(SOURCE);
        Dim3 grid = new Dim3((size + BLOCK - 1) / BLOCK, 1, 1);
        Dim3 block = new Dim3(BLOCK, 1, 1);
        Op[] ops = new Op[count];
        for (int k = 0; k < count; k++) {
            String name = KERNELS[k % KERNELS.length];
            KernelArg[] args = switch (name) {
                case "vec_add", "vec_mul" -> new KernelArg[] {KernelArg.pointer(x), KernelArg.pointer(y),
                        KernelArg.i32(size)};
                case "vec_relu" -> new KernelArg[] {KernelArg.pointer(x), KernelArg.i32(size)};
                default -> new KernelArg[] {KernelArg.pointer(x), KernelArg.f32(0.5f), KernelArg.f32(0.1f),
                        KernelArg.i32(size)};
            };
            ops[k] = context.op(name, stream, module.prepare(name, grid, block, 0, stream, args));
        }
        return ops;
    }
}
