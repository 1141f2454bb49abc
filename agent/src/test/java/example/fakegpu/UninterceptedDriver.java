package example.fakegpu;

import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * The benchmark's baseline: the same shape and body as the JCuda double's cuLaunchKernel
 * ({@code checkResult(native(...))} with a non-simulating "native"), in a class the agent does not
 * instrument. The difference between the two is the agent's cost per call.
 */
public final class UninterceptedDriver {
    private UninterceptedDriver() {
    }

    private static int checkResult(int result) {
        return result;
    }

    public static int cuLaunchKernel(CUfunction f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX,
                                     int blockDimY, int blockDimZ, int sharedMemBytes, CUstream hStream,
                                     Pointer kernelParams, Pointer extra) {
        return checkResult(cuLaunchKernelNative(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                sharedMemBytes, hStream, kernelParams, extra));
    }

    private static int cuLaunchKernelNative(CUfunction f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX,
                                            int blockDimY, int blockDimZ, int sharedMemBytes, CUstream hStream,
                                            Pointer kernelParams, Pointer extra) {
        if (!FakeGpu.simulating()) {
            return 0;
        }
        throw new IllegalStateException("the baseline never simulates");
    }
}
