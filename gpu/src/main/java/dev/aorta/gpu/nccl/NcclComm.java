package dev.aorta.gpu.nccl;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.cuda.Stream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One rank's handle on an NCCL communicator. Collectives are queued on the given stream and return at once;
 * buffers are device addresses, counts are elements. Check {@link #asyncError()} while waiting on a
 * collective: a failed peer shows there, not as a return code.
 */
public final class NcclComm implements AutoCloseable {
    private final Nccl nccl;
    private final long comm;
    private final int size;
    private final int rank;
    private boolean closed;

    NcclComm(Nccl nccl, long comm, int size, int rank) {
        this.nccl = nccl;
        this.comm = comm;
        this.size = size;
        this.rank = rank;
    }

    public int size() {
        return size;
    }

    public int rank() {
        return rank;
    }

    /** The native ncclComm_t. */
    public long address() {
        return comm;
    }

    public void allReduce(long send, long recv, long count, NcclDataType type, NcclRedOp op, Stream stream) {
        try {
            nccl.check("ncclAllReduce", (int) nccl.allReduce.invokeExact(send, recv, count, type.code, op.code, comm,
                    stream.address()), comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclAllReduce", t);
        }
        stream.enqueues().increment();
    }

    /** Each rank contributes {@code sendCount} elements; {@code recv} holds size·sendCount. */
    public void allGather(long send, long recv, long sendCount, NcclDataType type, Stream stream) {
        try {
            nccl.check("ncclAllGather", (int) nccl.allGather.invokeExact(send, recv, sendCount, type.code, comm,
                    stream.address()), comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclAllGather", t);
        }
        stream.enqueues().increment();
    }

    /** {@code send} holds size·recvCount elements; each rank receives its reduced {@code recvCount}. */
    public void reduceScatter(long send, long recv, long recvCount, NcclDataType type, NcclRedOp op, Stream stream) {
        try {
            nccl.check("ncclReduceScatter", (int) nccl.reduceScatter.invokeExact(send, recv, recvCount, type.code,
                    op.code, comm, stream.address()), comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclReduceScatter", t);
        }
        stream.enqueues().increment();
    }

    public void broadcast(long send, long recv, long count, NcclDataType type, int root, Stream stream) {
        try {
            nccl.check("ncclBroadcast", (int) nccl.broadcast.invokeExact(send, recv, count, type.code, root, comm,
                    stream.address()), comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclBroadcast", t);
        }
        stream.enqueues().increment();
    }

    /** Point-to-point send; pair with the peer's {@link #recv} inside one group. */
    public void send(long buffer, long count, NcclDataType type, int peer, Stream stream) {
        try {
            nccl.check("ncclSend", (int) nccl.send.invokeExact(buffer, count, type.code, peer, comm, stream.address()),
                    comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclSend", t);
        }
        stream.enqueues().increment();
    }

    public void recv(long buffer, long count, NcclDataType type, int peer, Stream stream) {
        try {
            nccl.check("ncclRecv", (int) nccl.recv.invokeExact(buffer, count, type.code, peer, comm, stream.address()),
                    comm);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclRecv", t);
        }
        stream.enqueues().increment();
    }

    /** A communicator of the ranks that pass the same {@code color}, ordered by {@code key}. */
    public NcclComm split(int color, int key) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            nccl.check("ncclCommSplit(color " + color + ")", (int) nccl.commSplit.invokeExact(comm, color, key, out, 0L),
                    comm);
            long c = out.get(JAVA_LONG, 0);
            MemorySegment v = a.allocate(JAVA_INT);
            nccl.check("ncclCommCount", (int) nccl.commCount.invokeExact(c, v), c);
            int n = v.get(JAVA_INT, 0);
            nccl.check("ncclCommUserRank", (int) nccl.commUserRank.invokeExact(c, v), c);
            return new NcclComm(nccl, c, n, v.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclCommSplit", t);
        }
    }

    /** The communicator's asynchronous error, if any (e.g. a peer died or a network error). */
    public Optional<String> asyncError() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment r = a.allocate(JAVA_INT);
            int rc = (int) nccl.commGetAsyncError.invokeExact(comm, r);
            int async = r.get(JAVA_INT, 0);
            if (rc != 0) {
                return Optional.of("ncclCommGetAsyncError failed: " + nccl.errorText(rc));
            }
            return async == 0 || async == Nccl.IN_PROGRESS ? Optional.empty()
                    : Optional.of(nccl.errorText(async) + " (ncclResult_t " + async + ")");
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclCommGetAsyncError", t);
        }
    }

    /** Stops all work of the communicator now (for a failed peer or a timeout) and frees it. */
    public void abort() {
        if (!closed) {
            closed = true;
            try {
                nccl.check("ncclCommAbort", (int) nccl.commAbort.invokeExact(comm), 0);
            } catch (Throwable t) {
                throw Ffm.callFailed("ncclCommAbort", t);
            }
        }
    }

    /** Finishes outstanding work and frees the communicator. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                nccl.check("ncclCommFinalize", (int) nccl.commFinalize.invokeExact(comm), comm);
                nccl.check("ncclCommDestroy", (int) nccl.commDestroy.invokeExact(comm), 0);
            } catch (Throwable t) {
                throw Ffm.callFailed("ncclCommDestroy", t);
            }
        }
    }
}
