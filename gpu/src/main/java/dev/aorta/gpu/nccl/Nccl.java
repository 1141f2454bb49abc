package dev.aorta.gpu.nccl;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The NCCL library (libnccl.so.2) through FFM; communicators are {@link NcclComm}. */
public final class Nccl {
    /** ncclUniqueId is a struct of 128 chars, passed by value to ncclCommInitRank. */
    static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(MemoryLayout.sequenceLayout(NcclUniqueId.SIZE, JAVA_BYTE));
    static final int IN_PROGRESS = 7;

    private static final Lazy<Nccl> INSTANCE = new Lazy<>(Nccl::new);

    final NativeLibrary lib;
    final MethodHandle getVersion, getUniqueId, commInitRank, allReduce, allGather, reduceScatter, broadcast, send,
            recv, groupStart, groupEnd, commGetAsyncError, commAbort, commDestroy, commFinalize, errorString,
            lastError, commSplit, commCount, commUserRank;

    private Nccl() {
        lib = NativeLibrary.load("NCCL", "AORTA_NCCL_LIBRARY", "libnccl.so.2", "libnccl.so");
        getVersion = lib.function("ncclGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getUniqueId = lib.function("ncclGetUniqueId", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        commInitRank = lib.function("ncclCommInitRank", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT));
        // (sendbuff, recvbuff, count, datatype, op, comm, stream): pointers and handles as 64-bit integers
        allReduce = lib.function("ncclAllReduce", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_INT, JAVA_LONG, JAVA_LONG));
        allGather = lib.function("ncclAllGather", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_LONG, JAVA_LONG));
        reduceScatter = lib.function("ncclReduceScatter", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
        broadcast = lib.function("ncclBroadcast", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_INT, JAVA_LONG, JAVA_LONG));
        send = lib.function("ncclSend", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG));
        recv = lib.function("ncclRecv", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG));
        groupStart = lib.function("ncclGroupStart", FunctionDescriptor.of(JAVA_INT));
        groupEnd = lib.function("ncclGroupEnd", FunctionDescriptor.of(JAVA_INT));
        commGetAsyncError = lib.function("ncclCommGetAsyncError", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        commAbort = lib.function("ncclCommAbort", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        commDestroy = lib.function("ncclCommDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        commFinalize = lib.function("ncclCommFinalize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        errorString = lib.function("ncclGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        lastError = lib.function("ncclGetLastError", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
        commSplit = lib.function("ncclCommSplit", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS,
                JAVA_LONG));
        commCount = lib.function("ncclCommCount", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        commUserRank = lib.function("ncclCommUserRank", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
    }

    /** The process-wide NCCL (loaded on first use). */
    public static Nccl get() {
        return INSTANCE.get();
    }

    public NativeLibrary library() {
        return lib;
    }

    /** NCCL's version as "major.minor.patch" (from ncclGetVersion's code, e.g. 22803 → 2.28.3). */
    public String version() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check("ncclGetVersion", (int) getVersion.invokeExact(v), 0);
            int code = v.get(JAVA_INT, 0);
            return code >= 10000 ? (code / 10000) + "." + (code % 10000) / 100 + "." + code % 100
                    : (code / 1000) + "." + (code % 1000) / 100 + "." + code % 100;
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclGetVersion", t);
        }
    }

    /** A new communicator id (rank 0 makes it and hands it to the others). */
    public NcclUniqueId newUniqueId() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocate(UNIQUE_ID);
            check("ncclGetUniqueId", (int) getUniqueId.invokeExact(id), 0);
            return new NcclUniqueId(id.toArray(JAVA_BYTE));
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclGetUniqueId", t);
        }
    }

    /**
     * Joins communicator {@code id} as {@code rank} of {@code nranks}, on the device current on this thread.
     * Blocks until every rank has joined.
     */
    public NcclComm initRank(NcclUniqueId id, int nranks, int rank) {
        if (rank < 0 || rank >= nranks) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (nranks - 1));
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment comm = a.allocate(ADDRESS);
            MemorySegment idSeg = a.allocate(UNIQUE_ID);
            idSeg.copyFrom(MemorySegment.ofArray(id.bytes()));
            check("ncclCommInitRank(rank " + rank + " of " + nranks + ")",
                    (int) commInitRank.invokeExact(comm, nranks, idSeg, rank), 0);
            return new NcclComm(this, comm.get(JAVA_LONG, 0), nranks, rank);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclCommInitRank", t);
        }
    }

    /** Starts a group: the collectives until {@link #groupEnd} are issued together (needed for send/recv pairs). */
    public void groupStart() {
        try {
            check("ncclGroupStart", (int) groupStart.invokeExact(), 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclGroupStart", t);
        }
    }

    public void groupEnd() {
        try {
            check("ncclGroupEnd", (int) groupEnd.invokeExact(), 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("ncclGroupEnd", t);
        }
    }

    void check(String call, int rc, long comm) {
        if (rc != 0 && rc != IN_PROGRESS) {
            String text = errorText(rc);
            if (comm != 0) {
                try {
                    String last = Ffm.string((MemorySegment) lastError.invokeExact(comm));
                    if (last != null && !last.isBlank()) {
                        text += ": " + last;
                    }
                } catch (Throwable ignored) {
                    // the error string alone still says what failed
                }
            }
            throw new GpuException(call, rc, text);
        }
    }

    String errorText(int rc) {
        try {
            return Ffm.string((MemorySegment) errorString.invokeExact(rc));
        } catch (Throwable t) {
            return "ncclResult_t " + rc;
        }
    }
}
