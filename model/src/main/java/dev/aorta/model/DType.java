package dev.aorta.model;

/**
 * Element types of a {@link Tensor}. The short names are the ones the parameter file (safetensors layout) and
 * numpy's readers use; fp16 and bf16 travel as raw 16-bit patterns on the host.
 */
public enum DType {
    FP32("F32", 4),
    BF16("BF16", 2),
    FP16("F16", 2),
    /** Indices (token ids of an embedding lookup). */
    I32("I32", 4);

    private final String fileName;
    private final int bytes;

    DType(String fileName, int bytes) {
        this.fileName = fileName;
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    /** The name in a parameter file's header ("F32", "BF16", "F16", "I32"). */
    public String fileName() {
        return fileName;
    }

    public boolean isFloating() {
        return this != I32;
    }

    public static DType ofFileName(String name) {
        for (DType d : values()) {
            if (d.fileName.equals(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + name + "'; expected one of F32, BF16, F16, I32");
    }

    /** The bf16 bit pattern nearest to {@code f} (round to nearest even, as CUDA's __float2bfloat16 does). */
    public static short toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40); // keep it a NaN after truncation
        }
        int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }

    public static float fromBf16(short b) {
        return Float.intBitsToFloat((b & 0xFFFF) << 16);
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
