package dev.aorta.gpu.cuda;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/** Device memory from a {@link DeviceAllocator}; {@link #close()} gives it back to the allocator's cache. */
public final class DeviceBuffer implements AutoCloseable {
    private final DeviceAllocator owner;
    private final CUdeviceptr pointer;
    private final long address;
    private final long bytes;
    private final long roundedBytes;
    private final String ownerLabel;
    private boolean closed;

    DeviceBuffer(DeviceAllocator owner, CUdeviceptr pointer, long bytes, long roundedBytes, String ownerLabel) {
        this.owner = owner;
        this.ownerLabel = ownerLabel;
        this.pointer = pointer;
        this.address = Handles.address(pointer);
        this.bytes = bytes;
        this.roundedBytes = roundedBytes;
    }

    /** The device address (for kernel parameters and library calls). */
    public long address() {
        return address;
    }

    public CUdeviceptr pointer() {
        return pointer;
    }

    /** Size asked for. */
    public long bytes() {
        return bytes;
    }

    long roundedBytes() {
        return roundedBytes;
    }

    /** Whom the allocator counts this buffer for. */
    String owner() {
        return ownerLabel;
    }

    public void copyFrom(float[] host) {
        requireFits(4L * host.length);
        Cu.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(pointer, Pointer.to(host), 4L * host.length));
    }

    public void copyTo(float[] host) {
        requireFits(4L * host.length);
        Cu.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(host), pointer, 4L * host.length));
    }

    public void copyFrom(short[] host) {
        requireFits(2L * host.length);
        Cu.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(pointer, Pointer.to(host), 2L * host.length));
    }

    public void copyTo(short[] host) {
        requireFits(2L * host.length);
        Cu.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(host), pointer, 2L * host.length));
    }

    public void copyFrom(int[] host) {
        requireFits(4L * host.length);
        Cu.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(pointer, Pointer.to(host), 4L * host.length));
    }

    public void copyTo(int[] host) {
        requireFits(4L * host.length);
        Cu.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(host), pointer, 4L * host.length));
    }

    /**
     * Synchronous copy of {@code host} into the buffer from byte {@code byteOffset} on (a tensor viewing part of a
     * larger buffer, such as one parameter in a flat parameter buffer).
     */
    public void copyFrom(long byteOffset, int[] host) {
        requireFits(byteOffset, 4L * host.length);
        Cu.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(pointer.withByteOffset(byteOffset), Pointer.to(host),
                4L * host.length));
    }

    public void copyTo(long byteOffset, int[] host) {
        requireFits(byteOffset, 4L * host.length);
        Cu.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(host), pointer.withByteOffset(byteOffset),
                4L * host.length));
    }

    public void copyFrom(long byteOffset, short[] host) {
        requireFits(byteOffset, 2L * host.length);
        Cu.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(pointer.withByteOffset(byteOffset), Pointer.to(host),
                2L * host.length));
    }

    public void copyTo(long byteOffset, short[] host) {
        requireFits(byteOffset, 2L * host.length);
        Cu.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(host), pointer.withByteOffset(byteOffset),
                2L * host.length));
    }

    /** Asynchronous copy from pinned host memory. */
    public void copyFromAsync(PinnedHostBuffer host, long bytes, Stream stream) {
        requireFits(bytes);
        Cu.check("cuMemcpyHtoDAsync", JCudaDriver.cuMemcpyHtoDAsync(pointer, host.pointer(), bytes, stream.handle()));
        stream.enqueues().increment();
    }

    /** Asynchronous copy to pinned host memory. */
    public void copyToAsync(PinnedHostBuffer host, long bytes, Stream stream) {
        requireFits(bytes);
        Cu.check("cuMemcpyDtoHAsync", JCudaDriver.cuMemcpyDtoHAsync(host.pointer(), pointer, bytes, stream.handle()));
        stream.enqueues().increment();
    }

    /** Asynchronous device-to-device copy of {@code bytes} from {@code source}. */
    public void copyFromAsync(DeviceBuffer source, long bytes, Stream stream) {
        requireFits(bytes);
        source.requireFits(bytes);
        Cu.check("cuMemcpyDtoDAsync", JCudaDriver.cuMemcpyDtoDAsync(pointer, source.pointer, bytes, stream.handle()));
        stream.enqueues().increment();
    }

    /** Sets {@code count} 32-bit words to {@code value}, asynchronously. */
    public void fill32Async(int value, long count, Stream stream) {
        requireFits(4 * count);
        Cu.check("cuMemsetD32Async", JCudaDriver.cuMemsetD32Async(pointer, value, count, stream.handle()));
        stream.enqueues().increment();
    }

    /** Sets {@code count} bytes to {@code value}, asynchronously. */
    public void fill8Async(byte value, long count, Stream stream) {
        requireFits(count);
        Cu.check("cuMemsetD8Async", JCudaDriver.cuMemsetD8Async(pointer, value, count, stream.handle()));
        stream.enqueues().increment();
    }

    private void requireFits(long byteOffset, long n) {
        if (byteOffset < 0) {
            throw new IllegalArgumentException("negative byte offset " + byteOffset + " into a device buffer");
        }
        requireFits(byteOffset + n);
    }

    private void requireFits(long n) {
        if (closed) {
            throw new IllegalStateException("device buffer used after close");
        }
        if (n > bytes) {
            throw new IllegalArgumentException(n + " bytes do not fit a device buffer of " + bytes + " bytes");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            owner.release(this);
        }
    }
}
