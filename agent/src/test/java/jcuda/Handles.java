package jcuda;

/** Lets the doubles in sub-packages play JCuda's JNI code, which writes native addresses into handles. */
public final class Handles {
    private Handles() {
    }

    public static void assign(NativePointerObject o, long address) {
        NativePointerObject.assign(o, address);
    }

    public static long address(NativePointerObject o) {
        return o == null ? 0 : o.getNativePointer();
    }
}
