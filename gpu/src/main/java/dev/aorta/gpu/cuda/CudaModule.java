package dev.aorta.gpu.cuda;

import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** Compiled device code (a cubin) loaded into the context; kernels are looked up by name. */
public final class CudaModule implements AutoCloseable {
    private final CUmodule module = new CUmodule();
    private boolean closed;

    CudaModule(byte[] image) {
        Cu.check("cuModuleLoadData", JCudaDriver.cuModuleLoadData(module, image));
    }

    /** The {@code extern "C"} kernel called {@code name}. */
    public Kernel kernel(String name) {
        CUfunction f = new CUfunction();
        Cu.check("cuModuleGetFunction(" + name + ")", JCudaDriver.cuModuleGetFunction(f, module, name));
        return new Kernel(name, f);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Cu.check("cuModuleUnload", JCudaDriver.cuModuleUnload(module));
        }
    }
}
