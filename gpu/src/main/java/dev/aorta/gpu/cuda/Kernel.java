package dev.aorta.gpu.cuda;

import jcuda.driver.CUfunction;

/** A kernel of a loaded module. Launch it through a {@link KernelLaunch} prepared once and reused. */
public final class Kernel {
    private final String name;
    private final CUfunction function;

    Kernel(String name, CUfunction function) {
        this.name = name;
        this.function = function;
    }

    public String name() {
        return name;
    }

    public CUfunction function() {
        return function;
    }

    /**
     * A launch of this kernel with {@code parameterCount} parameters, each set once (and changed when
     * needed) on the returned object, then launched any number of times.
     */
    public KernelLaunch prepare(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, int sharedBytes,
                                Stream stream, int parameterCount) {
        return new KernelLaunch(this, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes, stream, parameterCount);
    }

    /** A one-dimensional launch. */
    public KernelLaunch prepare(int grid, int block, Stream stream, int parameterCount) {
        return prepare(grid, 1, 1, block, 1, 1, 0, stream, parameterCount);
    }
}
