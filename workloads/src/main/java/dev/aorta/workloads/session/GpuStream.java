package dev.aorta.workloads.session;

/** A CUDA stream of a {@link GpuSession}. */
public interface GpuStream extends AutoCloseable {

    /** The priority it was created with. */
    int priority();

    /** The id device activity records carry for work on this stream (CUPTI's stream id). */
    long activityStreamId();

    /** Makes all later work on this stream wait until {@code event} has completed (no host wait). */
    void waitEvent(GpuEvent event);

    /** Blocks the host until the stream is idle. */
    void synchronize();

    @Override
    void close();
}
