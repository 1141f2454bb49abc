package dev.aorta.gpu.cuda;

import jcuda.NativePointerObject;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The native address behind a JCuda handle (CUstream, CUfunction, CUdeviceptr...). JCuda keeps it in a
 * private field; it is read through a VarHandle made once, so FFM calls can take JCuda's objects.
 */
public final class Handles {
    private static final VarHandle NATIVE_POINTER;

    static {
        try {
            NATIVE_POINTER = MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
                    .findVarHandle(NativePointerObject.class, "nativePointer", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("this JCuda version has no NativePointerObject.nativePointer: " + e);
        }
    }

    private Handles() {
    }

    public static long address(NativePointerObject handle) {
        return handle == null ? 0L : (long) NATIVE_POINTER.get(handle);
    }
}
