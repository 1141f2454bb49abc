package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.model.Tensor;
import dev.aorta.workloads.kernels.WorkloadKernels;

/** columns.cu of the workloads' kernels: a block of columns copied into a wider matrix (torch.cat along dim 1), prepared once per use. */
final class ColumnCopy implements AutoCloseable {
    private static final int BLOCK = 256;
    private final CudaModule module;

    ColumnCopy(ModelRuntime rt) {
        module = rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("columns.cu"), "columns.cu", rt.device().info().arch()));
    }

    /** A launch that copies {@code src} [rows, cols] into columns from {@code offset} of {@code dst} [rows, dstCols]. */
    KernelLaunch prepare(Tensor src, Tensor dst, int offset, Stream stream) {
        int rows = src.dim(0);
        int cols = src.dim(1);
        long n = (long) rows * cols;
        int grid = (int) Math.min(4096, (n + BLOCK - 1) / BLOCK);
        return module.kernel("copy_columns").prepare(grid, BLOCK, stream, 6).pointer(0, src.address())
                .pointer(1, dst.address()).intArg(2, rows).intArg(3, cols).intArg(4, dst.dim(1)).intArg(5, offset);
    }

    @Override
    public void close() {
        module.close();
    }
}
