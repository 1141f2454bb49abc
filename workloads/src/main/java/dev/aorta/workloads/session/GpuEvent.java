package dev.aorta.workloads.session;

/** A CUDA event: an ordering point between streams, and with timing enabled a point in device time. */
public interface GpuEvent extends AutoCloseable {

    /** Records the event on a stream: it completes when the stream reaches it. */
    void record(GpuStream stream);

    /** Blocks the host until the event has completed. */
    void synchronize();

    /**
     * Device time in milliseconds from {@code start} to this event; both must have completed and both must come from
     * {@link GpuSession#createTimingEvent}.
     */
    float elapsedMsSince(GpuEvent start);

    @Override
    void close();
}
