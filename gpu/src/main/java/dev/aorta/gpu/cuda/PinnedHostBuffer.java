package dev.aorta.gpu.cuda;

import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Page-locked host memory (cuMemHostAlloc), needed for truly asynchronous copies. */
public final class PinnedHostBuffer implements AutoCloseable {
    private final Pointer pointer;
    private final long bytes;
    private boolean closed;

    PinnedHostBuffer(long bytes) {
        this.pointer = new Pointer();
        this.bytes = bytes;
        Cu.check("cuMemHostAlloc(" + bytes + " bytes)", JCudaDriver.cuMemHostAlloc(pointer, bytes, 0));
    }

    public Pointer pointer() {
        return pointer;
    }

    public long bytes() {
        return bytes;
    }

    /** The memory as a segment, for reading and writing from Java. */
    public MemorySegment segment() {
        return MemorySegment.ofAddress(Handles.address(pointer)).reinterpret(bytes);
    }

    public ByteBuffer byteBuffer() {
        return pointer.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Cu.check("cuMemFreeHost", JCudaDriver.cuMemFreeHost(pointer));
        }
    }
}
