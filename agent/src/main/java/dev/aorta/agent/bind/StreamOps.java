package dev.aorta.agent.bind;

/**
 * The few driver operations the collective binder needs, on raw addresses. Implemented over JCuda's
 * native methods ({@link JCudaNatives}); replaced by a recording fake in tests.
 */
public interface StreamOps {
    /** Ordinal of the device current on the calling thread. */
    int currentDevice();

    /** A new stream with these flags and priority; its address. */
    long createStream(int flags, int priority);

    /** A new event without timing (cheapest to record and wait on); its address. */
    long createEvent();

    void recordEvent(long event, long stream);

    void streamWaitEvent(long stream, long event);

    /** Releases the event; safe while its record or waits are still pending on the device. */
    void destroyEvent(long event);
}
