package example.fakegpu;

import jcuda.driver.CUcontext;
import jcuda.driver.JCudaDriver;

/** A method with cuCtxDestroy's signature that destroys through the JCuda double, for weaving its advice in-process. */
public final class JCudaContextTarget {
    private JCudaContextTarget() {
    }

    public static int cuCtxDestroy(CUcontext context) {
        return JCudaDriver.cuCtxDestroy(context);
    }
}
