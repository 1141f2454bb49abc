package dev.aorta.model;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;

import java.lang.foreign.ValueLayout;

/**
 * Values that kernels read from device memory instead of taking them as launch arguments, so that the replays of a
 * captured CUDA graph see new values (a launch captured in a graph keeps the arguments it was captured with). The
 * host sets them in page-locked memory and {@link #upload} queues one copy of all of them on a stream, before the
 * work that reads them. The host must not set them again until that copy has run: a trainer sets them once per
 * step, after the previous step has ended.
 */
public final class GraphScalars implements AutoCloseable {
    private final PinnedHostBuffer host;
    private final DeviceBuffer device;

    /** Room for {@code words} 32-bit words. */
    public GraphScalars(CudaDevice cuda, int words) {
        this.host = cuda.allocatePinned(4L * words);
        this.device = cuda.allocate(4L * words);
    }

    public void setFloat(int word, float value) {
        host.segment().set(ValueLayout.JAVA_FLOAT, 4L * word, value);
    }

    /** A 64-bit value in words {@code word} and {@code word + 1}; {@code word} must be even (8-byte aligned). */
    public void setLong(int word, long value) {
        if (word % 2 != 0) {
            throw new IllegalArgumentException("a 64-bit graph scalar at word " + word + ": expected an even word");
        }
        host.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 4L * word, value);
    }

    /** Queues the copy of every value set so far to the device on {@code stream}. */
    public void upload(Stream stream) {
        device.copyFromAsync(host, host.bytes(), stream);
    }

    /** The device address of word {@code word}, for a kernel argument. */
    public long address(int word) {
        return device.address() + 4L * word;
    }

    @Override
    public void close() {
        device.close();
        host.close();
    }
}
