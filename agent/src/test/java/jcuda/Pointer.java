package jcuda;

/** Test double of jcuda.Pointer. */
public class Pointer extends NativePointerObject {
    public Pointer() {
    }

    protected Pointer(long address) {
        super(address);
    }

    /** Host memory from the double's cuMemHostAlloc, as the real method gives it. */
    public java.nio.ByteBuffer getByteBuffer(long byteOffset, long byteSize) {
        return example.fakegpu.FakeGpu.hostBuffer(getNativePointer(), byteOffset, byteSize);
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
