package jcuda.driver;

import example.fakegpu.FakeGpu;
import jcuda.Handles;
import jcuda.NativePointerObject;
import jcuda.Pointer;

import java.util.HashMap;
import java.util.Map;

/**
 * Test double of JCuda's driver API with the real signatures and the real shape: each public method is
 * {@code checkResult(xNative(...))}; the "natives" here drive {@link FakeGpu} instead of a GPU. A kernel
 * runs gridX microseconds.
 */
public final class JCudaDriver {
    private static final Map<Long, String> FUNCTION_NAMES = new HashMap<>();

    private JCudaDriver() {
    }

    private static int checkResult(int result) {
        return result;
    }

    private static long handle(NativePointerObject o) {
        return Handles.address(o);
    }

    /** CUDA_ERROR_INVALID_HANDLE. */
    private static final int INVALID_HANDLE = 400;

    private static int assign(NativePointerObject o) {
        Handles.assign(o, FakeGpu.newHandle());
        return 0;
    }

    public static int cuModuleGetFunction(CUfunction function, CUmodule module, String name) {
        int r = assign(function);
        synchronized (FUNCTION_NAMES) {
            FUNCTION_NAMES.put(handle(function), name);
        }
        return checkResult(r);
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
        String name;
        synchronized (FUNCTION_NAMES) {
            name = FUNCTION_NAMES.getOrDefault(handle(f), "kernel");
        }
        FakeGpu.run("KERNEL", name, handle(hStream), gridDimX * 1000L, 0, gridDimX, blockDimX, "cuLaunchKernel");
        return 0;
    }

    public static int cuLaunchCooperativeKernel(CUfunction f, int gridDimX, int gridDimY, int gridDimZ,
                                                int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes,
                                                CUstream hStream, Pointer kernelParams) {
        return checkResult(cuLaunchKernelNative(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                sharedMemBytes, hStream, kernelParams, null));
    }

    public static int cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
        FakeGpu.run("KERNEL", "graph", handle(hStream), 50_000, 0, 1, 1, "cuGraphLaunch");
        return checkResult(0);
    }

    public static int cuMemAlloc(CUdeviceptr dptr, long bytesize) {
        return checkResult(assign(dptr));
    }

    public static int cuMemFree(CUdeviceptr dptr) {
        return checkResult(0);
    }

    public static int cuMemcpyHtoDAsync(CUdeviceptr dst, Pointer src, long byteCount, CUstream hStream) {
        FakeGpu.run("MEMCPY", "memcpyHtoD", handle(hStream), 20_000, byteCount, 0, 0, "cuMemcpyHtoDAsync_v2");
        return checkResult(0);
    }

    public static int cuMemcpyDtoHAsync(Pointer dst, CUdeviceptr src, long byteCount, CUstream hStream) {
        FakeGpu.run("MEMCPY", "memcpyDtoH", handle(hStream), 20_000, byteCount, 0, 0, "cuMemcpyDtoHAsync_v2");
        return checkResult(0);
    }

    public static int cuMemcpyDtoH(Pointer dst, CUdeviceptr src, long byteCount) {
        FakeGpu.synchronize(0);
        return checkResult(0);
    }

    public static int cuMemcpyHtoD(CUdeviceptr dst, Pointer src, long byteCount) {
        FakeGpu.synchronize(0);
        return checkResult(0);
    }

    public static int cuMemsetD32Async(CUdeviceptr dstDevice, int ui, long n, CUstream hStream) {
        FakeGpu.run("MEMSET", "memset", handle(hStream), 10_000, n * 4, 0, 0, "cuMemsetD32Async");
        return checkResult(0);
    }

    public static int cuMemsetD8(CUdeviceptr dstDevice, byte uc, long n) {
        FakeGpu.synchronize(0);
        return checkResult(0);
    }

    public static int cuStreamCreate(CUstream phStream, int flags) {
        return checkResult(assign(phStream));
    }

    public static int cuStreamCreateWithPriority(CUstream phStream, int flags, int priority) {
        return checkResult(cuStreamCreateWithPriorityNative(phStream, flags, priority));
    }

    private static int cuStreamCreateWithPriorityNative(CUstream phStream, int flags, int priority) {
        return assign(phStream);
    }

    public static int cuStreamDestroy(CUstream hStream) {
        return checkResult(0);
    }

    public static int cuStreamSynchronize(CUstream hStream) {
        FakeGpu.synchronize(handle(hStream));
        return checkResult(0);
    }

    public static int cuCtxSynchronize() {
        FakeGpu.synchronize(0);
        return checkResult(0);
    }

    public static int cuCtxGetDevice(CUdevice device) {
        return checkResult(cuCtxGetDeviceNative(device));
    }

    private static int cuCtxGetDeviceNative(CUdevice device) {
        Handles.assign(device, 0);
        return 0;
    }

    public static int cuStreamIsCapturing(CUstream hStream, int[] captureStatus) {
        return checkResult(cuStreamIsCapturingNative(hStream, captureStatus));
    }

    private static int cuStreamIsCapturingNative(CUstream hStream, int[] captureStatus) {
        captureStatus[0] = FakeGpu.simulating() && FakeGpu.capturing(handle(hStream)) ? 1 : 0;
        return 0;
    }

    public static int cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, int value, int flags) {
        return checkResult(cuStreamWaitValue32Native(stream, addr, value, flags));
    }

    /** CU_STREAM_WAIT_VALUE_GEQ (0) only; CUDA_ERROR_NOT_SUPPORTED (801) where the fake has no memory operations. */
    private static int cuStreamWaitValue32Native(CUstream stream, CUdeviceptr addr, int value, int flags) {
        if (flags != 0) {
            throw new UnsupportedOperationException("the double waits with CU_STREAM_WAIT_VALUE_GEQ only, got " + flags);
        }
        if (!FakeGpu.simulating()) {
            return 0;
        }
        return FakeGpu.waitAtLeast(handle(stream), handle(addr), value) ? 0 : 801;
    }

    public static int cuMemHostAlloc(Pointer pp, long bytes, int Flags) {
        return checkResult(cuMemHostAllocNative(pp, bytes, Flags));
    }

    private static int cuMemHostAllocNative(Pointer pp, long bytes, int flags) {
        Handles.assign(pp, FakeGpu.hostAlloc(bytes));
        return 0;
    }

    public static int cuMemHostGetDevicePointer(CUdeviceptr ret, Pointer p, int Flags) {
        return checkResult(cuMemHostGetDevicePointerNative(ret, p, Flags));
    }

    /** Unified addressing: the device sees mapped host memory at its host address. */
    private static int cuMemHostGetDevicePointerNative(CUdeviceptr ret, Pointer p, int flags) {
        Handles.assign(ret, handle(p));
        return 0;
    }

    public static int cuDeviceGetAttribute(int[] pi, int attrib, CUdevice dev) {
        return checkResult(cuDeviceGetAttributeNative(pi, attrib, dev));
    }

    /** CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 (92) as the fake is set; 0 for everything else. */
    private static int cuDeviceGetAttributeNative(int[] pi, int attrib, CUdevice dev) {
        pi[0] = attrib == 92 && FakeGpu.memoryOperations() ? 1 : 0;
        return 0;
    }

    public static int cuStreamGetCtx(CUstream hStream, CUcontext pctx) {
        return checkResult(cuStreamGetCtxNative(hStream, pctx));
    }

    private static int cuStreamGetCtxNative(CUstream hStream, CUcontext pctx) {
        Handles.assign(pctx, 0xC7C7L);
        return 0;
    }

    public static int cuEventCreate(CUevent phEvent, int flags) {
        return checkResult(cuEventCreateNative(phEvent, flags));
    }

    private static int cuEventCreateNative(CUevent phEvent, int flags) {
        int r = assign(phEvent);
        FakeGpu.eventCreated(handle(phEvent));
        return r;
    }

    public static int cuEventDestroy(CUevent hEvent) {
        return checkResult(cuEventDestroyNative(hEvent));
    }

    private static int cuEventDestroyNative(CUevent hEvent) {
        return 0;
    }

    public static int cuEventRecord(CUevent hEvent, CUstream hStream) {
        return checkResult(cuEventRecordNative(hEvent, hStream));
    }

    private static int cuEventRecordNative(CUevent hEvent, CUstream hStream) {
        if (!FakeGpu.simulating()) {
            return 0;
        }
        if (FakeGpu.eventDestroyed(handle(hEvent))) {
            return INVALID_HANDLE;
        }
        FakeGpu.eventRecord(handle(hEvent), handle(hStream));
        return 0;
    }

    public static int cuEventSynchronize(CUevent hEvent) {
        return checkResult(cuEventSynchronizeNative(hEvent));
    }

    private static int cuEventSynchronizeNative(CUevent hEvent) {
        FakeGpu.eventSynchronize(handle(hEvent));
        return 0;
    }

    public static int cuEventQuery(CUevent hEvent) {
        return checkResult(cuEventQueryNative(hEvent));
    }

    /** CUDA_ERROR_NOT_READY (600) until the device has reached the event. */
    private static int cuEventQueryNative(CUevent hEvent) {
        if (FakeGpu.eventDestroyed(handle(hEvent))) {
            return INVALID_HANDLE;
        }
        try {
            FakeGpu.queryEntered();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return FakeGpu.eventDone(handle(hEvent)) ? 0 : 600;
    }

    public static int cuEventElapsedTime(float[] pMilliseconds, CUevent hStart, CUevent hEnd) {
        return checkResult(cuEventElapsedTimeNative(pMilliseconds, hStart, hEnd));
    }

    private static int cuEventElapsedTimeNative(float[] pMilliseconds, CUevent hStart, CUevent hEnd) {
        pMilliseconds[0] = (float) ((FakeGpu.eventTime(handle(hEnd)) - FakeGpu.eventTime(handle(hStart))) / 1e6);
        return 0;
    }

    public static int cuCtxGetCurrent(CUcontext pctx) {
        return checkResult(cuCtxGetCurrentNative(pctx));
    }

    private static int cuCtxGetCurrentNative(CUcontext pctx) {
        Handles.assign(pctx, 0xC7C7L);
        return 0;
    }

    /**
     * Destroys "the" context: the events made so far die with it (using one is CUDA_ERROR_INVALID_HANDLE), and the next
     * context the double hands out has the same address, as a real driver may.
     */
    public static int cuCtxDestroy(CUcontext ctx) {
        return checkResult(cuCtxDestroyNative(ctx));
    }

    private static int cuCtxDestroyNative(CUcontext ctx) {
        FakeGpu.contextDestroyed();
        return 0;
    }

    public static int cuCtxSetCurrent(CUcontext ctx) {
        return checkResult(cuCtxSetCurrentNative(ctx));
    }

    private static int cuCtxSetCurrentNative(CUcontext ctx) {
        return 0;
    }

    public static int cuStreamWaitEvent(CUstream hStream, CUevent hEvent, int flags) {
        return checkResult(cuStreamWaitEventNative(hStream, hEvent, flags));
    }

    private static int cuStreamWaitEventNative(CUstream hStream, CUevent hEvent, int flags) {
        FakeGpu.streamWait(handle(hStream), handle(hEvent));
        return 0;
    }
}
