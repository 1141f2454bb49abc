package dev.aorta.workloads.kernels;

import dev.aorta.gpu.nvrtc.Nvrtc;

/**
 * The CUDA C sources of the workloads, which live beside this class (resources {@code dev/aorta/workloads/kernels/}):
 * a package path of their own, because other jars on the same class path (the model module's) have kernel files of
 * the same names under {@code kernels/}, and the first jar would win.
 */
public final class WorkloadKernels {
    private WorkloadKernels() {
    }

    /** Whether {@code file} is one of the bundled kernel sources. */
    public static boolean has(String file) {
        return WorkloadKernels.class.getResource(file) != null;
    }

    /** The source of {@code file}, e.g. {@code elementwise.cu}. */
    public static String source(String file) {
        return Nvrtc.resource(WorkloadKernels.class, file);
    }
}
