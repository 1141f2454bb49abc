package jcuda;

/** Test double of jcuda.Pointer. */
public class Pointer extends NativePointerObject {
    public Pointer() {
    }

    protected Pointer(long address) {
        super(address);
    }

    public static Pointer to(float[] values) {
        return new Pointer(0x10000L + values.length);
    }

    public static Pointer to(int[] values) {
        return new Pointer(0x20000L + values.length);
    }

    public static Pointer to(NativePointerObject... pointers) {
        return new Pointer(0x30000L + pointers.length);
    }
}
