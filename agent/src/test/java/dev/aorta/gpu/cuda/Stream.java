package dev.aorta.gpu.cuda;

import jcuda.Handles;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/** Test double of the aorta-gpu Stream: same private field and package-private constructor as the real one. */
public final class Stream {
    private final CUstream handle;
    private final long address;
    private final int priority;

    Stream(int priority, boolean nonBlocking) {
        this.handle = new CUstream();
        this.priority = priority;
        JCudaDriver.cuStreamCreateWithPriority(handle, nonBlocking ? 1 : 0, priority);
        this.address = Handles.address(handle);
    }

    /** The real binding creates streams through CudaDevice#createStream; the double offers this instead. */
    public static Stream create(int priority, boolean nonBlocking) {
        return new Stream(priority, nonBlocking);
    }

    public CUstream handle() {
        return handle;
    }

    public long address() {
        return address;
    }

    public int priority() {
        return priority;
    }

    public void synchronize() {
        JCudaDriver.cuStreamSynchronize(handle);
    }
}
