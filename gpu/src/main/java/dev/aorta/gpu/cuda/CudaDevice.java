package dev.aorta.gpu.cuda;

import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.LibraryNotFoundException;
import dev.aorta.gpu.NativeLibrary;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

import java.nio.charset.StandardCharsets;

/**
 * One GPU, used through its primary context (the one the CUDA runtime, cuBLAS and NCCL also use, so
 * their work and ours share streams and memory). Streams, events, memory and modules come from here.
 */
public final class CudaDevice implements AutoCloseable {
    private static volatile boolean initialized;

    private final int ordinal;
    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final DeviceInfo info;
    private final DeviceAllocator allocator;
    private final EnqueueCounter enqueues = new EnqueueCounter();
    private boolean closed;

    private CudaDevice(int ordinal) {
        this.ordinal = ordinal;
        int count = deviceCount();
        if (ordinal < 0 || ordinal >= count) {
            throw new IllegalArgumentException("no GPU " + ordinal + ": this machine has " + count
                    + " (valid: 0.." + (count - 1) + ")");
        }
        Cu.check("cuDeviceGet", JCudaDriver.cuDeviceGet(device, ordinal));
        Cu.check("cuDevicePrimaryCtxRetain", JCudaDriver.cuDevicePrimaryCtxRetain(context, device));
        makeCurrent();
        this.info = query();
        this.allocator = new DeviceAllocator(this);
    }

    /** Opens GPU {@code ordinal} and makes its primary context current on the calling thread. */
    public static CudaDevice open(int ordinal) {
        init();
        return new CudaDevice(ordinal);
    }

    /** Number of CUDA devices; throws {@link GpuException} "no CUDA driver found: ..." when there is no driver. */
    public static int deviceCount() {
        init();
        int[] n = new int[1];
        Cu.check("cuDeviceGetCount", JCudaDriver.cuDeviceGetCount(n));
        return n[0];
    }

    /** The CUDA driver API version, e.g. 13000. */
    public static int driverVersion() {
        init();
        int[] v = new int[1];
        Cu.check("cuDriverGetVersion", JCudaDriver.cuDriverGetVersion(v));
        return v[0];
    }

    private static void init() {
        if (initialized) {
            return;
        }
        synchronized (CudaDevice.class) {
            if (initialized) {
                return;
            }
            try {
                driverLibrary();
            } catch (LibraryNotFoundException e) {
                Throwable why = e.getCause();
                throw new GpuException("no CUDA driver found: libcuda.so.1 could not be loaded"
                        + (why == null ? "" : " (" + why.getMessage() + ")"), e);
            }
            int rc;
            try {
                rc = JCudaDriver.cuInit(0);
            } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
                throw new GpuException("no CUDA driver found: " + firstLine(e), e);
            }
            if (rc != 0) {
                throw new GpuException("no CUDA driver found: cuInit returned " + Cu.describe(rc), null);
            }
            initialized = true;
        }
    }

    /** The driver library (libcuda.so.1), which JCuda's JNI library and our FFM launch path both call. */
    static NativeLibrary driverLibrary() {
        return NativeLibrary.load("CUDA driver", "AORTA_CUDA_DRIVER_LIBRARY", "libcuda.so.1", "libcuda.so");
    }

    private static String firstLine(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        Throwable c = e.getCause();
        if (c != null && c.getMessage() != null) {
            m = c.getMessage();
        }
        return m.lines().findFirst().orElse(m);
    }

    /** Makes this device's context current on the calling thread (needed once per thread before GPU work). */
    public void makeCurrent() {
        Cu.check("cuCtxSetCurrent", JCudaDriver.cuCtxSetCurrent(context));
    }

    private DeviceInfo query() {
        byte[] name = new byte[256];
        Cu.check("cuDeviceGetName", JCudaDriver.cuDeviceGetName(name, name.length, device));
        int len = 0;
        while (len < name.length && name[len] != 0) {
            len++;
        }
        long[] total = new long[1];
        Cu.check("cuDeviceTotalMem", JCudaDriver.cuDeviceTotalMem(total, device));
        int[] least = new int[1];
        int[] greatest = new int[1];
        Cu.check("cuCtxGetStreamPriorityRange", JCudaDriver.cuCtxGetStreamPriorityRange(least, greatest));
        String[] bus = new String[1];
        Cu.check("cuDeviceGetPCIBusId", JCudaDriver.cuDeviceGetPCIBusId(bus, 32, device));
        return new DeviceInfo(ordinal, new String(name, 0, len, StandardCharsets.UTF_8),
                attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), total[0],
                attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), driverVersion(),
                attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
                attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT), least[0], greatest[0],
                bus[0] == null ? "" : bus[0].trim());
    }

    private int attribute(int attribute) {
        int[] v = new int[1];
        Cu.check("cuDeviceGetAttribute(" + attribute + ")", JCudaDriver.cuDeviceGetAttribute(v, attribute, device));
        return v[0];
    }

    public DeviceInfo info() {
        return info;
    }

    public int ordinal() {
        return ordinal;
    }

    /** The primary context's native handle. */
    public long contextAddress() {
        return Handles.address(context);
    }

    /**
     * A new stream. {@code priority} is clamped by CUDA to [{@link DeviceInfo#greatestStreamPriority()},
     * {@link DeviceInfo#leastStreamPriority()}]; non-blocking streams do not synchronize with the legacy default stream.
     */
    /** The API calls that have enqueued work on this device's streams (see {@link EnqueueCounter}). */
    public EnqueueCounter enqueues() {
        return enqueues;
    }

    public Stream createStream(int priority, boolean nonBlocking) {
        makeCurrent();
        return new Stream(priority, nonBlocking, enqueues);
    }

    public Event createEvent(boolean timing) {
        makeCurrent();
        return new Event(timing);
    }

    public DeviceAllocator allocator() {
        return allocator;
    }

    public DeviceBuffer allocate(long bytes) {
        return allocator.allocate(bytes);
    }

    /** Device memory counted for {@code owner} in {@link #memoryStats()}. */
    public DeviceBuffer allocate(long bytes, String owner) {
        return allocator.allocate(bytes, owner);
    }

    public MemoryStats memoryStats() {
        return allocator.stats();
    }

    public PinnedHostBuffer allocatePinned(long bytes) {
        makeCurrent();
        return new PinnedHostBuffer(bytes);
    }

    /** Loads a cubin (e.g. from {@code Nvrtc}) into this device's context. */
    public CudaModule loadModule(byte[] cubin) {
        makeCurrent();
        return new CudaModule(cubin);
    }

    /** Waits for all work on the device. */
    public void synchronize() {
        makeCurrent();
        Cu.check("cuCtxSynchronize", JCudaDriver.cuCtxSynchronize());
    }

    /** The driver's view of device memory: {free, total} in bytes (cuMemGetInfo). */
    public long[] driverMemoryInfo() {
        makeCurrent();
        long[] free = new long[1];
        long[] total = new long[1];
        Cu.check("cuMemGetInfo", JCudaDriver.cuMemGetInfo(free, total));
        return new long[] {free[0], total[0]};
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            allocator.emptyCache();
            Cu.check("cuDevicePrimaryCtxRelease", JCudaDriver.cuDevicePrimaryCtxRelease(device));
        }
    }
}
