package dev.aorta.agent.bind;

import dev.aorta.agent.recorder.NativeAddress;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@link StreamOps} over JCuda's private native methods ({@code cuStreamWaitEventNative} etc.): calling
 * them directly keeps the agent's own calls out of its interception and out of JCuda's exception mode.
 * Raw addresses are wrapped into fresh {@code CUstream}/{@code CUevent} objects whose native pointer
 * the agent sets itself.
 */
public final class JCudaStreamOps implements StreamOps {
    private static final int CU_EVENT_DISABLE_TIMING = 2;

    private final Class<?> streamType;
    private final Class<?> eventType;
    private final Class<?> deviceType;
    private final MethodHandle ctxGetDevice;
    private final MethodHandle streamCreateWithPriority;
    private final MethodHandle eventCreate;
    private final MethodHandle eventRecord;
    private final MethodHandle streamWaitEvent;
    private final MethodHandle eventDestroy;

    /** Throws if JCuda's driver class or one of the natives is not there (the binder then stays off). */
    public JCudaStreamOps() throws ReflectiveOperationException {
        Class<?> driver = NativeAddress.jcudaClass("jcuda.driver.JCudaDriver");
        streamType = NativeAddress.jcudaClass("jcuda.driver.CUstream");
        eventType = NativeAddress.jcudaClass("jcuda.driver.CUevent");
        deviceType = NativeAddress.jcudaClass("jcuda.driver.CUdevice");
        MethodHandles.Lookup l = MethodHandles.privateLookupIn(driver, MethodHandles.lookup());
        ctxGetDevice = l.findStatic(driver, "cuCtxGetDeviceNative", MethodType.methodType(int.class, deviceType));
        streamCreateWithPriority = l.findStatic(driver, "cuStreamCreateWithPriorityNative",
                MethodType.methodType(int.class, streamType, int.class, int.class));
        eventCreate = l.findStatic(driver, "cuEventCreateNative", MethodType.methodType(int.class, eventType, int.class));
        eventRecord = l.findStatic(driver, "cuEventRecordNative", MethodType.methodType(int.class, eventType, streamType));
        streamWaitEvent = l.findStatic(driver, "cuStreamWaitEventNative",
                MethodType.methodType(int.class, streamType, eventType, int.class));
        eventDestroy = l.findStatic(driver, "cuEventDestroyNative", MethodType.methodType(int.class, eventType));
    }

    @Override
    public int currentDevice() {
        Object device = newHandle(deviceType, 0);
        check("cuCtxGetDevice", invoke(ctxGetDevice, device));
        return (int) NativeAddress.of(device);
    }

    /** An aorta-gpu Stream when that binding is there (its collectives take Stream objects), else a driver stream. */
    @Override
    public long createStream(int flags, int priority) {
        long own = OwnStreams.tryCreate(priority);
        if (own != 0) {
            return own;
        }
        Object stream = newHandle(streamType, 0);
        check("cuStreamCreateWithPriority", invoke(streamCreateWithPriority, stream, flags, priority));
        return NativeAddress.of(stream);
    }

    @Override
    public long createEvent() {
        Object event = newHandle(eventType, 0);
        check("cuEventCreate", invoke(eventCreate, event, CU_EVENT_DISABLE_TIMING));
        return NativeAddress.of(event);
    }

    @Override
    public void recordEvent(long event, long stream) {
        check("cuEventRecord", invoke(eventRecord, newHandle(eventType, event), newHandle(streamType, stream)));
    }

    @Override
    public void streamWaitEvent(long stream, long event) {
        check("cuStreamWaitEvent", invoke(streamWaitEvent, newHandle(streamType, stream), newHandle(eventType, event), 0));
    }

    @Override
    public void destroyEvent(long event) {
        check("cuEventDestroy", invoke(eventDestroy, newHandle(eventType, event)));
    }

    private static Object newHandle(Class<?> type, long address) {
        try {
            Object h = type.getConstructor().newInstance();
            NativeAddress.set(h, address);
            return h;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + type.getName(), e);
        }
    }

    private static int invoke(MethodHandle h, Object... args) {
        try {
            return (int) h.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void check(String call, int result) {
        if (result != 0) {
            throw new IllegalStateException(call + " returned CUDA error " + result);
        }
    }
}
