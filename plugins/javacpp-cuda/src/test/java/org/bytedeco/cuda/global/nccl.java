package org.bytedeco.cuda.global;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;

/** Test double of JavaCPP's nccl: real signatures, native, no library (see {@link cudart}). */
public final class nccl {
    private nccl() {
    }

    public static native int ncclAllReduce(Pointer sendbuff, Pointer recvbuff, long count, int datatype, int op,
                                           ncclComm comm, CUstream_st stream);

    public static native int ncclAllGather(Pointer sendbuff, Pointer recvbuff, long sendcount, int datatype,
                                           ncclComm comm, CUstream_st stream);
}
