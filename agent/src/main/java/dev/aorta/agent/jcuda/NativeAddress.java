package dev.aorta.agent.jcuda;

import dev.aorta.agent.AgentLog;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The native address inside a JCuda handle ({@code jcuda.NativePointerObject.nativePointer}). Everything
 * the agent keeps about streams, events and cuBLAS handles is keyed on this address, never on the Java
 * wrapper's identity (an application may wrap one stream in several objects).
 *
 * <p>The field is private and {@code getNativePointer()} protected, so a private-lookup VarHandle is made
 * once, when the first handle is read, in a holder class whose {@code static final} field the JIT treats
 * as a constant: after warm-up a read is a plain field load. The class loader to look in is the one
 * JCuda was found in, noted by the agent when it instruments a JCuda class.
 */
public final class NativeAddress {
    private static final String NATIVE_POINTER_OBJECT = "jcuda.NativePointerObject";
    private static volatile ClassLoader jcudaLoader;

    private NativeAddress() {
    }

    /** Notes where JCuda lives; the first call wins (one JCuda per process is the supported case). */
    public static void jcudaFoundIn(ClassLoader loader) {
        if (jcudaLoader == null) {
            jcudaLoader = loader == null ? ClassLoader.getSystemClassLoader() : loader;
        }
    }

    /** The handle's native address, 0 for null (JCuda's null stream is the legacy default stream). */
    public static long of(Object handle) {
        VarHandle h = Holder.NATIVE_POINTER;
        return handle == null || h == null ? 0 : (long) h.get(handle);
    }

    /** Sets the native address of a handle the agent created itself (used to wrap raw stream addresses). */
    public static void set(Object handle, long address) {
        VarHandle h = Holder.NATIVE_POINTER;
        if (h == null) {
            throw new IllegalStateException(NATIVE_POINTER_OBJECT + ".nativePointer is not accessible");
        }
        h.set(handle, address);
    }

    /** The JCuda class of that name, from JCuda's class loader. */
    public static Class<?> jcudaClass(String name) throws ClassNotFoundException {
        ClassLoader l = jcudaLoader;
        return Class.forName(name, false, l == null ? ClassLoader.getSystemClassLoader() : l);
    }

    private static final class Holder {
        /** Null when the field cannot be found (an unsupported JCuda): handles then read as 0. */
        static final VarHandle NATIVE_POINTER = resolve();

        private static VarHandle resolve() {
            try {
                Class<?> npo = jcudaClass(NATIVE_POINTER_OBJECT);
                return MethodHandles.privateLookupIn(npo, MethodHandles.lookup())
                        .findVarHandle(npo, "nativePointer", long.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.once("native-address", "cannot read " + NATIVE_POINTER_OBJECT
                        + ".nativePointer (" + e + "); JCuda handles are recorded as 0");
                return null;
            }
        }
    }
}
