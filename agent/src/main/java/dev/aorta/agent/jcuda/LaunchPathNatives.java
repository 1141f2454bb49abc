package dev.aorta.agent.jcuda;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The driver calls a sampled launch makes on the application's thread (current context, capture status, stream
 * gate, event records), through JCuda's private natives like {@link JCudaNatives}, but on JCuda handle objects the
 * caller made once and keeps ({@link #stream}, {@link #event}...): a call allocates nothing, where JCudaNatives
 * wraps every address in a fresh handle and passes its arguments as an array.
 */
public final class LaunchPathNatives {
    /** CU_STREAM_WAIT_VALUE_GEQ: wait until (int32_t)(*addr - value) >= 0, a cyclic comparison. */
    private static final int WAIT_VALUE_GEQ = 0;

    private final MethodHandle newStream;
    private final MethodHandle newEvent;
    private final MethodHandle newContext;
    private final MethodHandle newDevicePointer;
    private final MethodHandle ctxGetCurrent;
    private final MethodHandle streamIsCapturing;
    private final MethodHandle eventRecord;
    private final MethodHandle streamWaitValue32;

    /** Throws if JCuda's driver class or one of the natives is not there. */
    public LaunchPathNatives() throws ReflectiveOperationException {
        Class<?> driver = NativeAddress.jcudaClass("jcuda.driver.JCudaDriver");
        Class<?> streamType = NativeAddress.jcudaClass("jcuda.driver.CUstream");
        Class<?> eventType = NativeAddress.jcudaClass("jcuda.driver.CUevent");
        Class<?> contextType = NativeAddress.jcudaClass("jcuda.driver.CUcontext");
        Class<?> pointerType = NativeAddress.jcudaClass("jcuda.driver.CUdeviceptr");
        MethodHandles.Lookup l = MethodHandles.privateLookupIn(driver, MethodHandles.lookup());
        newStream = constructor(streamType);
        newEvent = constructor(eventType);
        newContext = constructor(contextType);
        newDevicePointer = constructor(pointerType);
        ctxGetCurrent = generic(l.findStatic(driver, "cuCtxGetCurrentNative",
                MethodType.methodType(int.class, contextType)));
        streamIsCapturing = generic(l.findStatic(driver, "cuStreamIsCapturingNative",
                MethodType.methodType(int.class, streamType, int[].class)));
        eventRecord = generic(l.findStatic(driver, "cuEventRecordNative",
                MethodType.methodType(int.class, eventType, streamType)));
        // (Object, Object, int, int)int: the value stays a primitive, so that a call does not box it
        streamWaitValue32 = l.findStatic(driver, "cuStreamWaitValue32Native",
                MethodType.methodType(int.class, streamType, pointerType, int.class, int.class))
                .asType(MethodType.methodType(int.class, Object.class, Object.class, int.class, int.class));
    }

    /** A CUstream handle holding {@code address}; {@link NativeAddress#set} points it elsewhere later. */
    public Object stream(long address) {
        return make(newStream, address);
    }

    public Object event(long address) {
        return make(newEvent, address);
    }

    /** A CUcontext handle for {@link #currentContext} to fill in. */
    public Object context() {
        return make(newContext, 0);
    }

    public Object devicePointer(long address) {
        return make(newDevicePointer, address);
    }

    /** The calling thread's current context, written into {@code context} and returned as an address. */
    public long currentContext(Object context) {
        check("cuCtxGetCurrent", call(ctxGetCurrent, context));
        return NativeAddress.of(context);
    }

    /** True while the stream is being captured into a graph; {@code status} is the caller's scratch int[1]. */
    public boolean capturing(Object stream, int[] status) {
        check("cuStreamIsCapturing", call(streamIsCapturing, stream, status));
        return status[0] != 0;
    }

    public void recordEvent(Object event, Object stream) {
        check("cuEventRecord", call(eventRecord, event, stream));
    }

    /** The stream waits until the 32-bit word at {@code word} is at least {@code value} (cyclically). */
    public void waitAtLeast(Object stream, Object word, int value) {
        int rc;
        try {
            rc = (int) streamWaitValue32.invokeExact(stream, word, value, WAIT_VALUE_GEQ);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        check("cuStreamWaitValue32", rc);
    }

    private static int call(MethodHandle h, Object a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int call(MethodHandle h, Object a, Object b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static Object make(MethodHandle constructor, long address) {
        try {
            Object h = (Object) constructor.invokeExact();
            NativeAddress.set(h, address);
            return h;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a JCuda handle", t);
        }
    }

    private static MethodHandle constructor(Class<?> type) throws ReflectiveOperationException {
        return MethodHandles.publicLookup().findConstructor(type, MethodType.methodType(void.class))
                .asType(MethodType.methodType(Object.class));
    }

    /** Adapts a native's handle to (Object...)int, so that invokeExact works on handles typed as Object. */
    private static MethodHandle generic(MethodHandle h) {
        return h.asType(MethodType.genericMethodType(h.type().parameterCount()).changeReturnType(int.class));
    }

    private static void check(String call, int result) {
        if (result != 0) {
            throw new IllegalStateException(call + " returned CUDA error " + result);
        }
    }
}
