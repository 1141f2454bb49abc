package org.bytedeco.cuda.global;

import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.dim3;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Test double of JavaCPP's cudart: real signatures, {@code public static native} like the real class, and
 * no native library behind them: a call that reaches the native throws UnsatisfiedLinkError, after the
 * agent's wrapper has recorded it.
 */
public final class cudart {
    private cudart() {
    }

    public static native int cudaLaunchKernel(Pointer func, dim3 gridDim, dim3 blockDim, PointerPointer args,
                                              long sharedMem, CUstream_st stream);

    public static native int cudaMemcpyAsync(Pointer dst, Pointer src, long count, int kind, CUstream_st stream);

    public static native int cudaMemsetAsync(Pointer devPtr, int value, long count, CUstream_st stream);

    public static native int cudaStreamCreateWithPriority(CUstream_st pStream, int flags, int priority);

    public static native int cudaStreamSynchronize(CUstream_st stream);

    public static native int cudaDeviceSynchronize();

    public static native int cudaEventRecord(CUevent_st event, CUstream_st stream);

    public static native int cudaStreamWaitEvent(CUstream_st stream, CUevent_st event, int flags);

    public static native int cudaGetDevice(int[] device);

    public static native int cudaEventCreateWithFlags(CUevent_st event, int flags);

    public static native int cudaEventDestroy(CUevent_st event);

    public static native int cudaGraphLaunch(CUgraphExec_st graphExec, CUstream_st stream);
}
