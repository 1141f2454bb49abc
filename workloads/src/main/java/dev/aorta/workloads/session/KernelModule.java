package dev.aorta.workloads.session;

import dev.aorta.core.event.Dim3;

/** Compiled CUDA C kernels ({@code extern "C" __global__}), loaded into the session's context. */
public interface KernelModule {

    /**
     * Builds a launch once (function lookup and parameter buffer included) so that
     * {@link PreparedLaunch#launch()} costs only the driver call: launch cost is what tiny_kernel_stress measures.
     *
     * @throws IllegalArgumentException when the module has no function of that name
     */
    PreparedLaunch prepare(String function, Dim3 grid, Dim3 block, int sharedBytes, GpuStream stream,
                           KernelArg... args);
}
