package dev.aorta.agent.jcuda;

import dev.aorta.agent.bind.OwnStreams;
import dev.aorta.agent.bind.StreamOps;

import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The driver calls the agent makes itself (collective binding, sampled event pairs, CUPTI stream
 * registration), through JCuda's private native methods ({@code cuStreamWaitEventNative} etc.): calling
 * them directly keeps the agent's own calls out of its interception and out of JCuda's exception mode.
 * Raw addresses are wrapped into fresh {@code CUstream}/{@code CUevent}/{@code CUcontext} objects whose
 * native pointer the agent sets itself. Not on any hot path: reflection and boxing are fine here (a sampled
 * launch's own calls go through {@link LaunchPathNatives}, which allocates nothing).
 */
public final class JCudaNatives implements StreamOps {
    /** CUDA_ERROR_NOT_READY: the event has not completed yet. */
    static final int NOT_READY = 600;
    private static final int CU_EVENT_DEFAULT = 0;
    private static final int CU_EVENT_DISABLE_TIMING = 2;
    private static final int MEMHOSTALLOC_DEVICEMAP = 2;

    private final Class<?> streamType;
    private final Class<?> eventType;
    private final Class<?> deviceType;
    private final Class<?> contextType;
    private final MethodHandle ctxGetDevice;
    private final MethodHandle ctxGetCurrent;
    private final MethodHandle ctxSetCurrent;
    private final MethodHandle streamGetCtx;
    private final MethodHandle streamCreateWithPriority;
    private final MethodHandle eventCreate;
    private final MethodHandle eventRecord;
    private final MethodHandle eventQuery;
    private final MethodHandle eventSynchronize;
    private final MethodHandle eventElapsedTime;
    private final MethodHandle streamWaitEvent;
    private final MethodHandle eventDestroy;
    private final MethodHandle streamIsCapturing;
    private final MethodHandle deviceGetAttribute;
    private final MethodHandle memHostAlloc;
    private final MethodHandle memHostGetDevicePointer;
    private final Class<?> hostPointerType;
    private final Class<?> devicePointerType;
    private final java.util.Map<Class<?>, MethodHandle> constructors = new java.util.HashMap<>();

    /** Throws if JCuda's driver class or one of the natives is not there. */
    public JCudaNatives() throws ReflectiveOperationException {
        Class<?> driver = NativeAddress.jcudaClass("jcuda.driver.JCudaDriver");
        streamType = NativeAddress.jcudaClass("jcuda.driver.CUstream");
        eventType = NativeAddress.jcudaClass("jcuda.driver.CUevent");
        deviceType = NativeAddress.jcudaClass("jcuda.driver.CUdevice");
        contextType = NativeAddress.jcudaClass("jcuda.driver.CUcontext");
        MethodHandles.Lookup l = MethodHandles.privateLookupIn(driver, MethodHandles.lookup());
        hostPointerType = NativeAddress.jcudaClass("jcuda.Pointer");
        devicePointerType = NativeAddress.jcudaClass("jcuda.driver.CUdeviceptr");
        MethodHandles.Lookup publicLookup = MethodHandles.publicLookup();
        for (Class<?> t : new Class<?>[] {streamType, eventType, deviceType, contextType, devicePointerType}) {
            constructors.put(t, publicLookup.findConstructor(t, MethodType.methodType(void.class))
                    .asType(MethodType.methodType(Object.class)));
        }
        ctxGetDevice = generic(l.findStatic(driver, "cuCtxGetDeviceNative", MethodType.methodType(int.class, deviceType)));
        ctxGetCurrent = generic(l.findStatic(driver, "cuCtxGetCurrentNative", MethodType.methodType(int.class, contextType)));
        ctxSetCurrent = generic(l.findStatic(driver, "cuCtxSetCurrentNative", MethodType.methodType(int.class, contextType)));
        streamGetCtx = generic(l.findStatic(driver, "cuStreamGetCtxNative", MethodType.methodType(int.class, streamType, contextType)));
        streamCreateWithPriority = generic(l.findStatic(driver, "cuStreamCreateWithPriorityNative",
                MethodType.methodType(int.class, streamType, int.class, int.class)));
        eventCreate = generic(l.findStatic(driver, "cuEventCreateNative", MethodType.methodType(int.class, eventType, int.class)));
        eventRecord = generic(l.findStatic(driver, "cuEventRecordNative", MethodType.methodType(int.class, eventType, streamType)));
        eventQuery = generic(l.findStatic(driver, "cuEventQueryNative", MethodType.methodType(int.class, eventType)));
        eventSynchronize = generic(l.findStatic(driver, "cuEventSynchronizeNative", MethodType.methodType(int.class, eventType)));
        eventElapsedTime = generic(l.findStatic(driver, "cuEventElapsedTimeNative",
                MethodType.methodType(int.class, float[].class, eventType, eventType)));
        streamWaitEvent = generic(l.findStatic(driver, "cuStreamWaitEventNative",
                MethodType.methodType(int.class, streamType, eventType, int.class)));
        eventDestroy = generic(l.findStatic(driver, "cuEventDestroyNative", MethodType.methodType(int.class, eventType)));
        streamIsCapturing = generic(l.findStatic(driver, "cuStreamIsCapturingNative",
                MethodType.methodType(int.class, streamType, int[].class)));
        deviceGetAttribute = l.findStatic(driver, "cuDeviceGetAttributeNative",
                MethodType.methodType(int.class, int[].class, int.class, deviceType))
                .asType(MethodType.methodType(int.class, int[].class, int.class, Object.class));
        memHostAlloc = l.findStatic(driver, "cuMemHostAllocNative",
                MethodType.methodType(int.class, hostPointerType, long.class, int.class))
                .asType(MethodType.methodType(int.class, Object.class, long.class, int.class));
        memHostGetDevicePointer = l.findStatic(driver, "cuMemHostGetDevicePointerNative",
                MethodType.methodType(int.class, devicePointerType, hostPointerType, int.class))
                .asType(MethodType.methodType(int.class, Object.class, Object.class, int.class));
    }

    @Override
    public int currentDevice() {
        Object device = handle(deviceType, 0);
        check("cuCtxGetDevice", invoke(ctxGetDevice, device));
        return (int) NativeAddress.of(device);
    }

    /** The context current on the calling thread. */
    public long currentContext() {
        Object ctx = handle(contextType, 0);
        check("cuCtxGetCurrent", invoke(ctxGetCurrent, ctx));
        return NativeAddress.of(ctx);
    }

    public void setCurrentContext(long context) {
        check("cuCtxSetCurrent", invoke(ctxSetCurrent, handle(contextType, context)));
    }

    public long streamContext(long stream) {
        Object ctx = handle(contextType, 0);
        check("cuStreamGetCtx", invoke(streamGetCtx, handle(streamType, stream), ctx));
        return NativeAddress.of(ctx);
    }

    /** An aorta-gpu Stream when that binding is there (its collectives take Stream objects), else a driver stream. */
    @Override
    public long createStream(int flags, int priority) {
        long own = OwnStreams.tryCreate(priority);
        if (own != 0) {
            return own;
        }
        return createDriverStream(flags, priority);
    }

    /** A plain driver stream (the agent's own, e.g. for reference events). */
    public long createDriverStream(int flags, int priority) {
        Object stream = handle(streamType, 0);
        check("cuStreamCreateWithPriority", invoke(streamCreateWithPriority, stream, flags, priority));
        return NativeAddress.of(stream);
    }

    /** An event without timing: cheapest to record and wait on. */
    @Override
    public long createEvent() {
        return createEvent(CU_EVENT_DISABLE_TIMING);
    }

    /** An event that cuEventElapsedTime can measure. */
    public long createTimedEvent() {
        return createEvent(CU_EVENT_DEFAULT);
    }

    private long createEvent(int flags) {
        Object event = handle(eventType, 0);
        check("cuEventCreate", invoke(eventCreate, event, flags));
        return NativeAddress.of(event);
    }

    @Override
    public void recordEvent(long event, long stream) {
        check("cuEventRecord", invoke(eventRecord, handle(eventType, event), handle(streamType, stream)));
    }

    /** True when the event has completed, false while the device has not reached it. */
    public boolean eventDone(long event) {
        int rc = invoke(eventQuery, handle(eventType, event));
        if (rc == NOT_READY) {
            return false;
        }
        check("cuEventQuery", rc);
        return true;
    }

    public void synchronizeEvent(long event) {
        check("cuEventSynchronize", invoke(eventSynchronize, handle(eventType, event)));
    }

    /** Milliseconds from {@code from} to {@code to} (both completed, timed events of one context). */
    public float elapsedMs(long from, long to) {
        float[] ms = new float[1];
        check("cuEventElapsedTime", invoke(eventElapsedTime, ms, handle(eventType, from), handle(eventType, to)));
        return ms[0];
    }

    /** True while the stream is being captured into a graph (events recorded then are graph nodes). */
    public boolean capturing(long stream) {
        int[] status = new int[1];
        check("cuStreamIsCapturing", invoke(streamIsCapturing, handle(streamType, stream), status));
        return status[0] != 0;
    }

    /** cuDeviceGetAttribute of the device with that ordinal. */
    public int deviceAttribute(int attribute, int device) {
        int[] value = new int[1];
        try {
            check("cuDeviceGetAttribute", (int) deviceGetAttribute.invokeExact(value, attribute, handle(deviceType, device)));
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return value[0];
    }

    /**
     * {@code count} zeroed 32-bit words of pinned host memory mapped into the current context's address space
     * (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP): the host writes them through the buffer, a stream reads
     * them at the device address. Never freed: the agent keeps them for the process's life.
     */
    public MappedWords mappedWords(int count) {
        long bytes = 4L * count;
        try {
            Object host = hostPointerType.getConstructor().newInstance();
            check("cuMemHostAlloc", (int) memHostAlloc.invokeExact(host, bytes, MEMHOSTALLOC_DEVICEMAP));
            Object device = handle(devicePointerType, 0);
            check("cuMemHostGetDevicePointer", (int) memHostGetDevicePointer.invokeExact(device, host, 0));
            ByteBuffer buffer = (ByteBuffer) hostPointerType.getMethod("getByteBuffer", long.class, long.class)
                    .invoke(host, 0L, bytes);
            for (int i = 0; i < count; i++) {
                buffer.putInt(4 * i, 0);
            }
            return new MappedWords(buffer, NativeAddress.of(device));
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot map host words", t);
        }
    }

    /** Host memory the device reads: {@code host} on this side, {@code deviceAddress} on the device's. */
    public record MappedWords(ByteBuffer host, long deviceAddress) {
    }

    @Override
    public void streamWaitEvent(long stream, long event) {
        check("cuStreamWaitEvent", invoke(streamWaitEvent, handle(streamType, stream), handle(eventType, event), 0));
    }

    @Override
    public void destroyEvent(long event) {
        check("cuEventDestroy", invoke(eventDestroy, handle(eventType, event)));
    }

    /** A fresh JCuda handle object of {@code type} holding {@code address}. */
    private Object handle(Class<?> type, long address) {
        try {
            Object h = constructors.get(type).invoke();
            NativeAddress.set(h, address);
            return h;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create " + type.getName(), t);
        }
    }

    private static int invoke(MethodHandle h, Object... args) {
        try {
            // the handles were adapted to take Objects (see generic()): no varargs boxing of the handle itself
            return switch (args.length) {
                case 1 -> (int) h.invokeExact(args[0]);
                case 2 -> (int) h.invokeExact(args[0], args[1]);
                case 3 -> (int) h.invokeExact(args[0], args[1], args[2]);
                default -> throw new IllegalArgumentException(args.length + " arguments");
            };
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Adapts a native's handle to (Object...)int, so that invokeExact works for any argument types. */
    private static MethodHandle generic(MethodHandle h) {
        return h.asType(MethodType.genericMethodType(h.type().parameterCount()).changeReturnType(int.class));
    }

    private static void check(String call, int result) {
        if (result != 0) {
            throw new IllegalStateException(call + " returned CUDA error " + result);
        }
    }
}
