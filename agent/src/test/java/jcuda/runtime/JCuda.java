package jcuda.runtime;

import example.fakegpu.FakeGpu;
import jcuda.Handles;
import jcuda.Pointer;

/** Test double of JCuda's runtime API (the methods the test application uses), real signatures. */
public final class JCuda {
    private JCuda() {
    }

    private static int checkResult(int result) {
        return result;
    }

    public static int cudaStreamCreate(cudaStream_t pStream) {
        Handles.assign(pStream, FakeGpu.newHandle());
        return checkResult(0);
    }

    public static int cudaStreamCreateWithPriority(cudaStream_t pStream, int flags, int priority) {
        Handles.assign(pStream, FakeGpu.newHandle());
        return checkResult(0);
    }

    public static int cudaMemcpyAsync(Pointer dst, Pointer src, long count, int cudaMemcpyKind_kind, cudaStream_t stream) {
        FakeGpu.run("MEMCPY", "cudaMemcpyAsync", Handles.address(stream), 20_000, count, 0, 0, "cuMemcpyAsync");
        return checkResult(0);
    }

    public static int cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
        FakeGpu.eventRecord(Handles.address(event), Handles.address(stream));
        return checkResult(0);
    }

    public static int cudaDeviceSynchronize() {
        FakeGpu.synchronize(0);
        return checkResult(0);
    }
}
