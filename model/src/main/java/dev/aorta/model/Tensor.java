package dev.aorta.model;

import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;

import java.util.Arrays;

/**
 * An n-dimensional array in device memory: dtype, shape, strides (in elements) and an element offset into a
 * buffer from the device's caching allocator. Views ({@link #view}, {@link #slice}, {@link #transpose}) share
 * the buffer and copy nothing; only the tensor that allocated the buffer gives it back on {@link #close}, so
 * a view must not outlive its base.
 */
public final class Tensor implements AutoCloseable {
    /** CUDA_ERROR_OUT_OF_MEMORY. */
    private static final int OUT_OF_MEMORY = 2;

    private final CudaDevice device;
    private final DeviceBuffer buffer;
    private final boolean owner;
    private final DType dtype;
    private final int[] shape;
    private final long[] strides;
    private final long offset;

    private Tensor(CudaDevice device, DeviceBuffer buffer, boolean owner, DType dtype, int[] shape, long[] strides,
                   long offset) {
        this.device = device;
        this.buffer = buffer;
        this.owner = owner;
        this.dtype = dtype;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
    }

    /**
     * A new contiguous tensor (contents undefined). {@code op} and {@code what} only name the request in the
     * out-of-memory message, which also says what the allocator holds.
     */
    public static Tensor empty(CudaDevice device, String op, String what, DType dtype, int... shape) {
        int[] s = shape.clone();
        long bytes = allocationBytes(dtype, s);
        DeviceBuffer buffer;
        try {
            buffer = device.allocate(bytes, op);
        } catch (GpuException e) {
            if (e.code() != OUT_OF_MEMORY) {
                throw e;
            }
            MemoryStats m = device.memoryStats();
            throw new GpuException(op + ": out of device memory allocating " + bytes + " bytes for " + what + " "
                    + dtype + " " + Shapes.format(s) + "; the allocator holds " + m.allocatedBytes()
                    + " bytes in live tensors and " + m.reservedBytes() + " bytes reserved from the driver", e);
        }
        return new Tensor(device, buffer, true, dtype, s, contiguousStrides(s), 0);
    }

    /** The bytes {@link #empty} asks the allocator for: at least one element, so that every tensor has an address. */
    static long allocationBytes(DType dtype, int[] shape) {
        return Math.max(1, Shapes.numel(shape)) * dtype.bytes();
    }

    /**
     * A tensor with a dtype and shape but no memory: shape rules, views and layer wiring can be checked on it
     * without a GPU. Anything that touches memory fails.
     */
    public static Tensor meta(DType dtype, int... shape) {
        int[] s = shape.clone();
        Shapes.numel(s);
        return new Tensor(null, null, false, dtype, s, contiguousStrides(s), 0);
    }

    public boolean isMeta() {
        return buffer == null;
    }

    /** A new tensor filled from {@code values} (converted to {@code dtype}), copied synchronously. */
    public static Tensor of(CudaDevice device, String what, DType dtype, float[] values, int... shape) {
        Tensor t = empty(device, "upload", what, dtype, shape);
        t.copyFrom(values);
        return t;
    }

    static long[] contiguousStrides(int[] shape) {
        long[] st = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            st[i] = s;
            s *= shape[i];
        }
        return st;
    }

    public DType dtype() {
        return dtype;
    }

    public int[] shape() {
        return shape.clone();
    }

    public long[] strides() {
        return strides.clone();
    }

    public int rank() {
        return shape.length;
    }

    /** Size of dimension {@code i}; negative {@code i} counts from the end. */
    public int dim(int i) {
        return shape[i < 0 ? shape.length + i : i];
    }

    public long numel() {
        return Shapes.numel(shape);
    }

    public long bytes() {
        return numel() * dtype.bytes();
    }

    public CudaDevice device() {
        return device;
    }

    /** Device address of the first element. */
    public long address() {
        requireMemory();
        return buffer.address() + offset * dtype.bytes();
    }

    public boolean isContiguous() {
        return Arrays.equals(strides, contiguousStrides(shape)) || numel() <= 1;
    }

    /**
     * Whether {@code other} holds the same elements: the same allocation (not merely the same address, which the
     * allocator hands out again once a tensor is closed), the same first element, count and dtype. Views of one
     * tensor under another shape count as the same; a meta tensor has no elements and matches nothing.
     */
    public boolean sameElementsAs(Tensor other) {
        return other != null && buffer != null && buffer == other.buffer && offset == other.offset
                && numel() == other.numel() && dtype == other.dtype;
    }

    /** The same elements under another shape (one size may be -1, inferred); needs a contiguous tensor. */
    public Tensor view(int... newShape) {
        Shapes.requireContiguous("view", "self", this);
        int[] s = newShape.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == -1 && infer < 0) {
                infer = i;
            } else {
                known *= s[i];
            }
        }
        if (infer >= 0 && known > 0 && numel() % known == 0) {
            s[infer] = (int) (numel() / known);
        }
        if (Shapes.numel(s) != numel()) {
            throw new IllegalArgumentException("view: operand self has shape " + Shapes.format(shape)
                    + " (" + numel() + " elements), cannot be viewed as " + Shapes.format(newShape));
        }
        return new Tensor(device, buffer, false, dtype, s, contiguousStrides(s), offset);
    }

    /**
     * The first bytes of this contiguous tensor read as {@code newDtype} under {@code newShape}, without a copy: for
     * scratch memory that holds one kind of value in one pass and another in the next. The start must fall on an
     * element boundary of the new dtype.
     */
    public Tensor reinterpret(DType newDtype, int... newShape) {
        Shapes.requireContiguous("reinterpret", "self", this);
        int[] s = newShape.clone();
        long bytes = Shapes.numel(s) * newDtype.bytes();
        long startByte = offset * dtype.bytes();
        if (bytes > numel() * dtype.bytes() || startByte % newDtype.bytes() != 0) {
            throw new IllegalArgumentException("reinterpret: operand self is " + dtype + " " + Shapes.format(shape)
                    + " at byte " + startByte + ", cannot be read as " + newDtype + " " + Shapes.format(newShape)
                    + " (" + bytes + " bytes" + (startByte % newDtype.bytes() != 0 ? ", misaligned" : "") + ")");
        }
        return new Tensor(device, buffer, false, newDtype, s, contiguousStrides(s), startByte / newDtype.bytes());
    }

    /** Elements {@code start .. start+length-1} of dimension {@code d}, without a copy. */
    public Tensor slice(int d, int start, int length) {
        if (d < 0 || d >= shape.length || start < 0 || length < 0 || start + length > shape[d]) {
            throw new IllegalArgumentException("slice: dimension " + d + " range [" + start + ", " + (start + length)
                    + ") is outside shape " + Shapes.format(shape));
        }
        int[] s = shape.clone();
        s[d] = length;
        return new Tensor(device, buffer, false, dtype, s, strides.clone(), offset + start * strides[d]);
    }

    /** Dimensions {@code a} and {@code b} swapped, without a copy (the result is strided). */
    public Tensor transpose(int a, int b) {
        int[] s = shape.clone();
        long[] st = strides.clone();
        s[a] = shape[b];
        s[b] = shape[a];
        st[a] = strides[b];
        st[b] = strides[a];
        return new Tensor(device, buffer, false, dtype, s, st, offset);
    }

    /**
     * Copies host values in, converting to this tensor's dtype. Synchronous for the host, but not ordered after
     * work queued on non-blocking streams: call it once such work that reads or writes this tensor is done.
     */
    public void copyFrom(float[] values) {
        requireHostTransfer("copyFrom", values.length);
        HostTensor h = HostTensor.ofFloats(dtype, shape, values);
        upload(h.data());
    }

    public void copyFrom(int[] values) {
        requireHostTransfer("copyFrom", values.length);
        if (dtype != DType.I32) {
            throw new IllegalArgumentException("copyFrom: int values into a " + dtype + " tensor");
        }
        device.makeCurrent();
        buffer.copyFrom(byteOffset(), values);
    }

    public void copyFrom(HostTensor h) {
        if (h.dtype() != dtype || !Arrays.equals(h.shape(), shape)) {
            throw new IllegalArgumentException("copyFrom: host tensor " + h.dtype() + " " + Shapes.format(h.shape())
                    + ", expected " + dtype + " " + Shapes.format(shape));
        }
        requireHostTransfer("copyFrom", h.numel());
        upload(h.data());
    }

    /**
     * Queues a copy of this whole tensor's bytes from page-locked host memory on {@code stream} (the trainer's
     * batches: the host fills the staging buffer, the copy overlaps compute on another stream).
     */
    public void copyFromAsync(PinnedHostBuffer host, Stream stream) {
        requireMemory();
        Shapes.requireContiguous("copyFromAsync", "self", this);
        device.makeCurrent();
        slicedBuffer().copyFromAsync(host, bytes(), stream);
    }

    /** Queues a copy of this whole tensor's bytes into page-locked host memory on {@code stream}. */
    public void copyToAsync(PinnedHostBuffer host, Stream stream) {
        requireMemory();
        Shapes.requireContiguous("copyToAsync", "self", this);
        device.makeCurrent();
        slicedBuffer().copyToAsync(host, bytes(), stream);
    }

    /** Waits for the device, then reads the values back as floats. */
    public float[] toFloats() {
        return toHost().toFloats();
    }

    public HostTensor toHost() {
        requireHostTransfer("toHost", numel());
        device.synchronize();
        byte[] raw = new byte[(int) bytes()];
        if (dtype.bytes() == 2) {
            short[] halves = new short[(int) numel()];
            buffer.copyTo(byteOffset(), halves);
            java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).asShortBuffer().put(halves);
        } else {
            int[] words = new int[(int) numel()];
            buffer.copyTo(byteOffset(), words);
            java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(words);
        }
        return new HostTensor(dtype, shape, raw);
    }

    /** Sets every element to zero on {@code stream}. */
    public void zero(Stream stream) {
        requireMemory();
        Shapes.requireContiguous("zero", "self", this);
        device.makeCurrent();
        slicedBuffer().fill8Async((byte) 0, bytes(), stream);
    }

    /** Sets every element's 32 bits to {@code value}'s (fp32 and i32 tensors; NaN poisons an output). */
    public void fill(float value, Stream stream) {
        requireMemory();
        Shapes.requireContiguous("fill", "self", this);
        if (dtype.bytes() != 4) {
            throw new IllegalArgumentException("fill: a " + dtype + " tensor; only 32-bit dtypes");
        }
        device.makeCurrent();
        slicedBuffer().fill32Async(Float.floatToRawIntBits(value), numel(), stream);
    }

    private void upload(byte[] raw) {
        device.makeCurrent();
        if (dtype.bytes() == 2) {
            short[] halves = new short[raw.length / 2];
            java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(halves);
            buffer.copyFrom(byteOffset(), halves);
        } else {
            int[] words = new int[raw.length / 4];
            java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(words);
            buffer.copyFrom(byteOffset(), words);
        }
    }

    /** Where this tensor's first element is in its buffer (synchronous host transfers reach views there). */
    private long byteOffset() {
        return offset * dtype.bytes();
    }

    /** Asynchronous DeviceBuffer operations start at the buffer's base; they need a view that starts there too. */
    private DeviceBuffer slicedBuffer() {
        if (offset != 0) {
            throw new UnsupportedOperationException("asynchronous transfer or fill of a view that does not start at"
                    + " its buffer's first element; use a kernel or a fresh tensor");
        }
        return buffer;
    }

    private void requireMemory() {
        if (buffer == null) {
            throw new IllegalStateException("tensor " + Shapes.format(shape) + " is a meta tensor: it has no memory");
        }
    }

    private void requireHostTransfer(String what, long n) {
        requireMemory();
        Shapes.requireContiguous(what, "self", this);
        if (n != numel()) {
            throw new IllegalArgumentException(what + ": " + n + " host values for a tensor of shape "
                    + Shapes.format(shape) + " (" + numel() + " elements)");
        }
    }

    @Override
    public void close() {
        if (owner) {
            buffer.close();
        }
    }

    @Override
    public String toString() {
        return "Tensor(" + dtype + " " + Shapes.format(shape) + (isContiguous() ? "" : " strided") + ")";
    }
}
