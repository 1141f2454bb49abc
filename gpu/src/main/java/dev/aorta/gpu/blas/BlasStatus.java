package dev.aorta.gpu.blas;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** cuBLAS and cuBLASLt report errors the same way: a {@code cublasStatus_t} and a library call that names it. */
final class BlasStatus {
    private BlasStatus() {
    }

    /**
     * Throws a {@link GpuException} naming {@code call} and the status's text when {@code status} is not success.
     *
     * @param statusString the library's {@code cublas(Lt)GetStatusString}: {@code const char* (cublasStatus_t)}
     */
    static void check(MethodHandle statusString, String call, int status) {
        if (status != 0) {
            String text;
            try {
                text = Ffm.string((MemorySegment) statusString.invokeExact(status));
            } catch (Throwable t) {
                text = "cublasStatus_t " + status;
            }
            throw new GpuException(call, status, text);
        }
    }
}
