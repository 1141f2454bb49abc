package dev.aorta.plugins.javacpp;

import dev.aorta.agent.bind.StreamOps;
import org.bytedeco.javacpp.Pointer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The collective binder's stream operations through JavaCPP's cudart, for applications without JCuda. Calls the
 * plugin intercepts itself (event record, stream wait, stream create) go to the natives under their prefixed name
 * ({@code aorta$...}, kept by the agent's wrapping) so that the binder's own calls are not recorded as the
 * application's; the public method is used where the class was not wrapped. Any CUDA error throws, which switches
 * binding off with one line.
 */
final class JavaCppStreamOps implements StreamOps {
    static final String PREFIX = "aorta$";
    /** cudaStreamNonBlocking is passed by the binder; cudaEventDisableTiming: the cheapest event to record and wait on. */
    static final int EVENT_DISABLE_TIMING = 2;

    private final Class<? extends Pointer> streamType;
    private final Class<? extends Pointer> eventType;
    private final MethodHandle getDevice;
    private final MethodHandle streamCreate;
    private final MethodHandle eventCreate;
    private final MethodHandle eventRecord;
    private final MethodHandle streamWaitEvent;
    private final MethodHandle eventDestroy;

    private JavaCppStreamOps(ClassLoader loader) throws ReflectiveOperationException {
        Class<?> cudart = Class.forName(JavaCppCudaPlugin.CUDART, true, loader);
        streamType = Class.forName("org.bytedeco.cuda.cudart.CUstream_st", false, loader).asSubclass(Pointer.class);
        eventType = Class.forName("org.bytedeco.cuda.cudart.CUevent_st", false, loader).asSubclass(Pointer.class);
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(cudart, MethodHandles.lookup());
        getDevice = find(lookup, cudart, "cudaGetDevice", int[].class);
        streamCreate = find(lookup, cudart, "cudaStreamCreateWithPriority", streamType, int.class, int.class);
        eventCreate = find(lookup, cudart, "cudaEventCreateWithFlags", eventType, int.class);
        eventRecord = find(lookup, cudart, "cudaEventRecord", eventType, streamType);
        streamWaitEvent = find(lookup, cudart, "cudaStreamWaitEvent", streamType, eventType, int.class);
        eventDestroy = find(lookup, cudart, "cudaEventDestroy", eventType);
    }

    /** The operations of the cudart beside {@code stream}'s class (the application's JavaCPP). */
    static JavaCppStreamOps near(Pointer stream) {
        ClassLoader loader = stream != null ? stream.getClass().getClassLoader() : ClassLoader.getSystemClassLoader();
        try {
            return new JavaCppStreamOps(loader);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JavaCPP's cudart lacks a stream operation the binder needs: " + e, e);
        }
    }

    /** The prefixed native if the agent wrapped the method, else the public one. */
    private static MethodHandle find(MethodHandles.Lookup lookup, Class<?> cudart, String name, Class<?>... params)
            throws ReflectiveOperationException {
        MethodType type = MethodType.methodType(int.class, params);
        try {
            return lookup.findStatic(cudart, PREFIX + name, type);
        } catch (NoSuchMethodException notWrapped) {
            return lookup.findStatic(cudart, name, type);
        }
    }

    @Override
    public int currentDevice() {
        int[] device = new int[1];
        check("cudaGetDevice", invoke(getDevice, (Object) device));
        return device[0];
    }

    @Override
    public long createStream(int flags, int priority) {
        Pointer stream = JavaCppAddress.pointer(streamType, 0);
        check("cudaStreamCreateWithPriority", invoke(streamCreate, stream, flags, priority));
        return stream.address();
    }

    @Override
    public long createEvent() {
        Pointer event = JavaCppAddress.pointer(eventType, 0);
        check("cudaEventCreateWithFlags", invoke(eventCreate, event, EVENT_DISABLE_TIMING));
        return event.address();
    }

    @Override
    public void recordEvent(long event, long stream) {
        check("cudaEventRecord", invoke(eventRecord, JavaCppAddress.pointer(eventType, event),
                JavaCppAddress.pointer(streamType, stream)));
    }

    @Override
    public void streamWaitEvent(long stream, long event) {
        check("cudaStreamWaitEvent", invoke(streamWaitEvent, JavaCppAddress.pointer(streamType, stream),
                JavaCppAddress.pointer(eventType, event), 0));
    }

    @Override
    public void destroyEvent(long event) {
        check("cudaEventDestroy", invoke(eventDestroy, JavaCppAddress.pointer(eventType, event)));
    }

    private static int invoke(MethodHandle h, Object... args) {
        try {
            return (int) h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
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
