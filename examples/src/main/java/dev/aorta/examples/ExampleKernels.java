package dev.aorta.examples;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

/** The examples' PTX (sm_90, from example_kernels.cu beside it), loaded with cuModuleLoadData. */
final class ExampleKernels {
    private final CUmodule module = new CUmodule();

    ExampleKernels() {
        cuModuleLoadData(module, ptx());
    }

    /** The examples' common start: the driver with exceptions on, device 0's primary context current. */
    static void useDevice0() {
        JCudaDriver.setExceptionsEnabled(true);
        cuInit(0);
        CUdevice device = new CUdevice();
        cuDeviceGet(device, 0);
        CUcontext context = new CUcontext();
        cuDevicePrimaryCtxRetain(context, device);
        cuCtxSetCurrent(context);
    }

    CUfunction function(String name) {
        CUfunction f = new CUfunction();
        cuModuleGetFunction(f, module, name);
        return f;
    }

    static String ptx() {
        try (InputStream in = ExampleKernels.class.getResourceAsStream("example_kernels.ptx")) {
            if (in == null) {
                throw new IllegalStateException("example_kernels.ptx missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
