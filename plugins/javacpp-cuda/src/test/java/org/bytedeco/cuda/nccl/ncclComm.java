package org.bytedeco.cuda.nccl;

import org.bytedeco.javacpp.Pointer;

/** Test double of org.bytedeco.cuda.nccl.ncclComm. */
public class ncclComm extends Pointer {
    public ncclComm(long address) {
        super(address);
    }
}
