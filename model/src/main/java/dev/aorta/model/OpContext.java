package dev.aorta.model;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;

/**
 * What the ops of one thread share on one device: the kernels and a cuBLAS handle. Every op takes its stream
 * from the caller; {@link #blasOn} points the handle at it before a GEMM. Not thread-safe (cuBLAS handles
 * are not): one context per thread.
 */
public final class OpContext implements AutoCloseable {
    private final CudaDevice device;
    private final Kernels kernels;
    private final Cublas cublas;

    public OpContext(CudaDevice device, Stream initialStream) {
        this.device = device;
        this.kernels = new Kernels(device);
        this.cublas = new Cublas(device, initialStream);
    }

    public CudaDevice device() {
        return device;
    }

    public Kernels kernels() {
        return kernels;
    }

    /** The cuBLAS handle, issuing on {@code stream} (re-pointed only when the stream changes). */
    public Cublas blasOn(Stream stream) {
        if (cublas.streamAddress() != stream.address()) {
            cublas.setStream(stream);
        }
        return cublas;
    }

    /** A new tensor for op {@code op}; see {@link Tensor#empty}. */
    public Tensor empty(String op, String what, DType dtype, int... shape) {
        return Tensor.empty(device, op, what, dtype, shape);
    }

    @Override
    public void close() {
        cublas.close();
        kernels.close();
    }
}
