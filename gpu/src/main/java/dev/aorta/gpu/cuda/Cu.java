package dev.aorta.gpu.cuda;

import dev.aorta.gpu.GpuException;
import jcuda.driver.JCudaDriver;

/** Checks CUDA driver return codes: a non-zero code becomes a {@link GpuException} naming the call. */
public final class Cu {
    private Cu() {
    }

    public static void check(String call, int result) {
        if (result != 0) {
            throw new GpuException(call, result, describe(result));
        }
    }

    /** The driver's name and description of a CUresult, e.g. "CUDA_ERROR_INVALID_VALUE (invalid argument)". */
    public static String describe(int result) {
        String[] name = new String[1];
        String[] text = new String[1];
        try {
            JCudaDriver.cuGetErrorName(result, name);
            JCudaDriver.cuGetErrorString(result, text);
        } catch (Throwable ignored) {
            // the driver may be gone (e.g. during shutdown); the numeric code is still reported
        }
        return (name[0] == null ? "CUresult " + result : name[0]) + (text[0] == null ? "" : " (" + text[0] + ")");
    }
}
