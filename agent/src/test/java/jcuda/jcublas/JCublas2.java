package jcuda.jcublas;

import example.fakegpu.FakeGpu;
import jcuda.Handles;
import jcuda.Pointer;
import jcuda.runtime.cudaStream_t;

import java.util.HashMap;
import java.util.Map;

/** Test double of JCublas2: handles remember their stream, as cuBLAS does. */
public final class JCublas2 {
    private static final Map<Long, Long> STREAMS = new HashMap<>();

    private JCublas2() {
    }

    private static int checkResult(int result) {
        return result;
    }

    public static int cublasCreate(cublasHandle handle) {
        Handles.assign(handle, FakeGpu.newHandle());
        return checkResult(0);
    }

    public static synchronized int cublasSetStream(cublasHandle handle, cudaStream_t streamId) {
        STREAMS.put(Handles.address(handle), Handles.address(streamId));
        return checkResult(0);
    }

    public static int cublasSgemm(cublasHandle handle, int transa, int transb, int m, int n, int k, Pointer alpha,
                                  Pointer A, int lda, Pointer B, int ldb, Pointer beta, Pointer C, int ldc) {
        long stream;
        synchronized (JCublas2.class) {
            stream = STREAMS.getOrDefault(Handles.address(handle), 0L);
        }
        FakeGpu.run("KERNEL", "sgemm_kernel", stream, (long) m * n * k / 1000, 0, 1, 1, "cuLaunchKernel");
        return checkResult(0);
    }
}
