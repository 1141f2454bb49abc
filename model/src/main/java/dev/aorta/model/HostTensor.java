package dev.aorta.model;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A tensor's values on the host as raw little-endian bytes in its dtype: what parameter files hold and what
 * goes to or comes from a device {@link Tensor}. Raw bytes, not floats, so that bf16/fp16 and int32 values
 * round-trip bit for bit.
 */
public record HostTensor(DType dtype, int[] shape, byte[] data) {

    public HostTensor {
        shape = shape.clone();
        long expected = Shapes.numel(shape) * dtype.bytes();
        if (data.length != expected) {
            throw new IllegalArgumentException("host tensor " + dtype + " " + Shapes.format(shape) + " needs "
                    + expected + " bytes, got " + data.length);
        }
    }

    /** Values rounded to {@code dtype} (round to nearest even for bf16 and fp16). */
    public static HostTensor ofFloats(DType dtype, int[] shape, float[] values) {
        if (values.length != Shapes.numel(shape)) {
            throw new IllegalArgumentException(values.length + " values for shape " + Shapes.format(shape));
        }
        ByteBuffer b = ByteBuffer.allocate(values.length * dtype.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            switch (dtype) {
                case FP32 -> b.putFloat(v);
                case BF16 -> b.putShort(DType.toBf16(v));
                case FP16 -> b.putShort(Float.floatToFloat16(v));
                case I32 -> throw new IllegalArgumentException("float values for an I32 tensor");
            }
        }
        return new HostTensor(dtype, shape, b.array());
    }

    public static HostTensor ofInts(int[] shape, int[] values) {
        if (values.length != Shapes.numel(shape)) {
            throw new IllegalArgumentException(values.length + " values for shape " + Shapes.format(shape));
        }
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        return new HostTensor(DType.I32, shape, b.array());
    }

    public int numel() {
        return (int) Shapes.numel(shape);
    }

    @Override
    public int[] shape() {
        return shape.clone();
    }

    public float[] toFloats() {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[numel()];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (dtype) {
                case FP32 -> b.getFloat();
                case BF16 -> DType.fromBf16(b.getShort());
                case FP16 -> Float.float16ToFloat(b.getShort());
                case I32 -> b.getInt();
            };
        }
        return out;
    }

    public double[] toDoubles() {
        float[] f = toFloats();
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    public int[] toInts() {
        if (dtype != DType.I32) {
            throw new IllegalArgumentException("toInts of a " + dtype + " tensor");
        }
        int[] out = new int[numel()];
        ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HostTensor h && h.dtype == dtype && Arrays.equals(h.shape, shape)
                && Arrays.equals(h.data, data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * dtype.hashCode() + Arrays.hashCode(shape)) + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "HostTensor(" + dtype + " " + Shapes.format(shape) + ")";
    }
}
