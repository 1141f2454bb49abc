package dev.aorta.agent.bind;

/** What the binder did, for the trace: the communication streams it made and the dependencies it added. */
public interface BinderListener {
    void commStreamCreated(long stream, int device, int priority, int flags);

    /** {@code waitStream} now waits for everything enqueued on {@code recordStream} up to {@code atNs}. */
    void dependencyAdded(long event, long recordStream, long waitStream, long atNs);
}
