package dev.aorta.gpu;

import java.lang.foreign.MemorySegment;

/** Small helpers for FFM calls into C libraries. */
public final class Ffm {
    private Ffm() {
    }

    /** Reads a NUL-terminated C string (null for a NULL pointer). */
    public static String string(MemorySegment cString) {
        if (cString == null || cString.address() == 0) {
            return null;
        }
        return cString.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** Rethrows what a MethodHandle.invokeExact threw, wrapped with the call's name. */
    public static GpuException callFailed(String call, Throwable t) {
        if (t instanceof GpuException g) {
            return g;
        }
        return new GpuException(call + " could not be called: " + t, t);
    }
}
