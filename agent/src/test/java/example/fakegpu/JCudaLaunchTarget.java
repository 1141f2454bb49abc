package example.fakegpu;

import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * A method with cuLaunchKernel's signature that launches through the JCuda double, for weaving the launch advice
 * in-process: gridX < 0 throws (the application's own failure), gridX == 0 returns an error as a refused launch does.
 */
public final class JCudaLaunchTarget {
    /** CUDA_ERROR_INVALID_VALUE. */
    public static final int REFUSED = 1;

    private JCudaLaunchTarget() {
    }

    public static int cuLaunchKernel(CUfunction f, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
                                     int sharedMem, CUstream stream, Pointer params, Pointer extra) {
        if (gridX < 0) {
            throw new IllegalArgumentException("the application's own failure");
        }
        if (gridX == 0) {
            return REFUSED;
        }
        return JCudaDriver.cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, stream, params,
                extra);
    }
}
