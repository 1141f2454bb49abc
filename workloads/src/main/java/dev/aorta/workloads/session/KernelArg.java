package dev.aorta.workloads.session;

/** One kernel parameter, in the order of the kernel's signature. */
public sealed interface KernelArg {

    record Pointer(GpuBuffer buffer) implements KernelArg { }

    record Int32(int value) implements KernelArg { }

    record Int64(long value) implements KernelArg { }

    record Float32(float value) implements KernelArg { }

    static KernelArg pointer(GpuBuffer buffer) {
        return new Pointer(buffer);
    }

    static KernelArg i32(int value) {
        return new Int32(value);
    }

    static KernelArg i64(long value) {
        return new Int64(value);
    }

    static KernelArg f32(float value) {
        return new Float32(value);
    }
}
