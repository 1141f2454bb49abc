package jcuda;

/** Test double of JCuda's handle base class: same private field and protected accessor. */
public abstract class NativePointerObject {
    private long nativePointer;

    protected NativePointerObject() {
    }

    protected NativePointerObject(long nativePointer) {
        this.nativePointer = nativePointer;
    }

    protected long getNativePointer() {
        return nativePointer;
    }

    /** What JCuda's JNI code does when a native call fills in a handle. */
    static void assign(NativePointerObject o, long address) {
        o.nativePointer = address;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[0x" + Long.toHexString(nativePointer) + "]";
    }
}
