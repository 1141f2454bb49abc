package dev.aorta.workloads.p0;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.session.KernelModule;
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
    static final float SCALE_A = 0.5f;
    static final float SCALE_B = 0.1f;

    private ElementwiseOps() {
    }

    /** The kernel names of {@link #prepare}'s ops, in order. */
    static java.util.List<String> names(int count) {
        java.util.List<String> names = new java.util.ArrayList<>();
        for (int k = 0; k < count; k++) {
            names.add(KERNELS[k % KERNELS.length]);
        }
        return names;
    }

    /** {@code count} prepared ops cycling through the four kernels, on {@code x} (in place) and {@code y}. */
    static Op[] prepare(WorkloadContext context, GpuStream stream, GpuBuffer x, GpuBuffer y, int size,
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
                default -> new KernelArg[] {KernelArg.pointer(x), KernelArg.f32(SCALE_A), KernelArg.f32(SCALE_B),
                        KernelArg.i32(size)};
            };
            ops[k] = context.op(name, stream, module.prepare(name, grid, block, 0, stream, args));
        }
        return ops;
    }
}
