package dev.aorta.workloads.session;

import java.util.Optional;

/**
 * This process's member of a group of ranks that exchange device buffers (an NCCL communicator).
 * Every collective is only enqueued on the given stream and returns at once; counts are elements of
 * {@code type}; reductions are sums. Every member must issue the same collectives in the same order.
 * A failed peer does not show as an exception of a call but in {@link #asyncError()}: poll it while
 * waiting for the device, and {@link #abort()} (from any thread) to stop work that can never finish.
 */
public interface Communicator extends AutoCloseable {

    /** This member's rank inside the communicator, 0..size−1. */
    int rank();

    int size();

    /** {@code recv[i] = Σ over ranks of send[i]}, {@code count} elements. */
    void allReduce(GpuBuffer send, GpuBuffer recv, long count, CommDType type, GpuStream stream);

    /** Every rank contributes {@code sendCount} elements; {@code recv} gets size·sendCount, rank r's at r·sendCount. */
    void allGather(GpuBuffer send, GpuBuffer recv, long sendCount, CommDType type, GpuStream stream);

    /** {@code send} holds size·recvCount elements; rank r receives the sum of every rank's block r. */
    void reduceScatter(GpuBuffer send, GpuBuffer recv, long recvCount, CommDType type, GpuStream stream);

    /** {@code recv} of every rank gets {@code count} elements of {@code send} of rank {@code root}. */
    void broadcast(GpuBuffer send, GpuBuffer recv, long count, CommDType type, int root, GpuStream stream);

    /**
     * All-to-all as one group of point-to-point sends and receives: block p ({@code countPerPeer} elements)
     * of {@code send} goes to rank p, whose {@code recv} gets it at block {@code rank()}.
     */
    void allToAll(GpuBuffer send, GpuBuffer recv, long countPerPeer, CommDType type, GpuStream stream);

    /**
     * A communicator of the members that pass the same {@code color}, ranked by {@code key}; every member
     * must call it (collective over this communicator).
     */
    Communicator split(int color, int key);

    /** The communicator's asynchronous error (a peer died, a network failure), if any; safe from any thread. */
    Optional<String> asyncError();

    /** Stops all its outstanding work now and frees it; safe from any thread, idempotent. */
    void abort();

    /** Finishes outstanding work and frees it; idempotent, a no-op after {@link #abort()}. */
    @Override
    void close();
}
