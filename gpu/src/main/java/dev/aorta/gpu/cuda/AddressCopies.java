package dev.aorta.gpu.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * Asynchronous copies between pinned host memory and device memory known only by its address (a tensor of the model
 * module, a view into a buffer), on a stream.
 */
public final class AddressCopies {
    private AddressCopies() {
    }

    /** {@code bytes} from {@code src} at {@code srcOffset} to device address {@code dst}. */
    public static void hostToDevice(long dst, PinnedHostBuffer src, long srcOffset, long bytes, Stream stream) {
        requireInside(src, srcOffset, bytes);
        Cu.check("cuMemcpyHtoDAsync", JCudaDriver.cuMemcpyHtoDAsync(device(dst), src.pointer().withByteOffset(srcOffset),
                bytes, stream.handle()));
        stream.enqueues().increment();
    }

    /** {@code bytes} from device address {@code src} to {@code dst} at {@code dstOffset}. */
    public static void deviceToHost(PinnedHostBuffer dst, long dstOffset, long src, long bytes, Stream stream) {
        requireInside(dst, dstOffset, bytes);
        Cu.check("cuMemcpyDtoHAsync", JCudaDriver.cuMemcpyDtoHAsync(dst.pointer().withByteOffset(dstOffset),
                device(src), bytes, stream.handle()));
        stream.enqueues().increment();
    }

    private static CUdeviceptr device(long address) {
        return new CUdeviceptr().withByteOffset(address);
    }

    private static void requireInside(PinnedHostBuffer host, long offset, long bytes) {
        if (offset < 0 || bytes < 0 || offset + bytes > host.bytes()) {
            throw new IllegalArgumentException("copy of " + bytes + " bytes at offset " + offset
                    + " does not fit a pinned buffer of " + host.bytes() + " bytes");
        }
    }
}
