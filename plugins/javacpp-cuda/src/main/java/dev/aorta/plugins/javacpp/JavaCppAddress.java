package dev.aorta.plugins.javacpp;

import org.bytedeco.javacpp.Pointer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Native addresses of JavaCPP pointers: read (its public {@code address()}, 0 for null) and made. */
public final class JavaCppAddress {
    private JavaCppAddress() {
    }

    public static long of(Pointer p) {
        return p == null ? 0 : p.address();
    }

    /**
     * A new pointer of {@code type} (a JavaCPP handle class such as {@code CUstream_st}, which has a public no-argument
     * constructor) holding {@code address}: JavaCPP has no public way to set it, so its protected field is written.
     * Not on a hot path (comm streams and the binder's events).
     */
    public static Pointer pointer(Class<? extends Pointer> type, long address) {
        try {
            Pointer p = type.getConstructor().newInstance();
            Field.ADDRESS.set(p, address);
            return p;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make a " + type.getName() + " at address " + address + ": " + e, e);
        }
    }

    private static final class Field {
        static final VarHandle ADDRESS;

        static {
            try {
                ADDRESS = MethodHandles.privateLookupIn(Pointer.class, MethodHandles.lookup())
                        .findVarHandle(Pointer.class, "address", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
