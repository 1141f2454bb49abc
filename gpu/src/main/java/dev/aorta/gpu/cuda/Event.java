package dev.aorta.gpu.cuda;

import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/** A CUDA event: a point in a stream's work, for timing (device clock) and cross-stream dependencies. */
public final class Event implements AutoCloseable {
    private final CUevent handle = new CUevent();
    private final boolean timing;
    private boolean closed;

    Event(boolean timing) {
        this.timing = timing;
        Cu.check("cuEventCreate", JCudaDriver.cuEventCreate(handle,
                timing ? CUevent_flags.CU_EVENT_DEFAULT : CUevent_flags.CU_EVENT_DISABLE_TIMING));
    }

    public CUevent handle() {
        return handle;
    }

    public long address() {
        return Handles.address(handle);
    }

    public void record(Stream stream) {
        Cu.check("cuEventRecord", JCudaDriver.cuEventRecord(handle, stream.handle()));
    }

    public void synchronize() {
        Cu.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(handle));
    }

    /** Device time in milliseconds from {@code start} to this event (both recorded and complete). */
    public float millisSince(Event start) {
        if (!timing || !start.timing) {
            throw new IllegalStateException("elapsed time needs two timing events");
        }
        float[] ms = new float[1];
        Cu.check("cuEventElapsedTime", JCudaDriver.cuEventElapsedTime(ms, start.handle, handle));
        return ms[0];
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Cu.check("cuEventDestroy", JCudaDriver.cuEventDestroy(handle));
        }
    }
}
