package dev.aorta.gpu.cuda;

import jcuda.driver.CUgraph;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/** A CUDA stream with its priority (lower number = more urgent, as CUDA defines it). */
public final class Stream implements AutoCloseable {
    private final CUstream handle;
    private final long address;
    private final int priority;
    private final boolean nonBlocking;
    private final EnqueueCounter enqueues;
    private boolean closed;

    /**
     * A stream that no device counts the work of (it has a counter of its own). The agent makes its communication
     * streams with this constructor, found by its signature, so it stays; collectives the agent moves onto such a
     * stream are therefore not in the device's count.
     */
    Stream(int priority, boolean nonBlocking) {
        this(priority, nonBlocking, new EnqueueCounter());
    }

    Stream(int priority, boolean nonBlocking, EnqueueCounter enqueues) {
        this.enqueues = enqueues;
        this.handle = new CUstream();
        this.priority = priority;
        this.nonBlocking = nonBlocking;
        Cu.check("cuStreamCreateWithPriority", JCudaDriver.cuStreamCreateWithPriority(handle,
                nonBlocking ? CUstream_flags.CU_STREAM_NON_BLOCKING : CUstream_flags.CU_STREAM_DEFAULT, priority));
        this.address = Handles.address(handle);
    }

    public CUstream handle() {
        return handle;
    }

    /** The native CUstream address (what CUPTI, NCCL and cuBLAS see). */
    public long address() {
        return address;
    }

    /** The counter of the device this stream belongs to: every call that enqueues work here increments it. */
    public EnqueueCounter enqueues() {
        return enqueues;
    }

    public int priority() {
        return priority;
    }

    public boolean nonBlocking() {
        return nonBlocking;
    }

    public void synchronize() {
        Cu.check("cuStreamSynchronize", JCudaDriver.cuStreamSynchronize(handle));
    }

    /** True when all work queued so far has completed. */
    public boolean isIdle() {
        int rc = JCudaDriver.cuStreamQuery(handle);
        if (rc == jcuda.driver.CUresult.CUDA_ERROR_NOT_READY) {
            return false;
        }
        Cu.check("cuStreamQuery", rc);
        return true;
    }

    /** Work queued on this stream after this call waits for {@code event}. */
    public void waitFor(Event event) {
        Cu.check("cuStreamWaitEvent", JCudaDriver.cuStreamWaitEvent(handle, event.handle(), 0));
    }

    /** Starts capturing this thread's work on the stream into a graph (thread-local capture mode). */
    public void beginCapture() {
        Cu.check("cuStreamBeginCapture", JCudaDriver.cuStreamBeginCapture(handle,
                jcuda.driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    }

    /** Ends capture and instantiates the captured work as a launchable graph. */
    public CudaGraph endCapture() {
        CUgraph graph = new CUgraph();
        Cu.check("cuStreamEndCapture", JCudaDriver.cuStreamEndCapture(handle, graph));
        return new CudaGraph(graph);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Cu.check("cuStreamDestroy", JCudaDriver.cuStreamDestroy(handle));
        }
    }
}
