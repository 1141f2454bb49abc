package dev.aorta.workloads.session;

/**
 * Page-locked (pinned) host memory: the only host memory a device copy can read or write asynchronously, at the
 * link's full rate, through the copy engines. The session frees what is still open when it closes.
 */
public interface HostBuffer extends AutoCloseable {

    long bytes();

    @Override
    void close();
}
