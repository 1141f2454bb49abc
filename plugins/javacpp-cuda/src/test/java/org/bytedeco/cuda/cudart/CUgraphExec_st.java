package org.bytedeco.cuda.cudart;

import org.bytedeco.javacpp.Pointer;

/** Test double of org.bytedeco.cuda.cudart.CUgraphExec_st. */
public class CUgraphExec_st extends Pointer {
    public CUgraphExec_st() {
    }

    public CUgraphExec_st(long address) {
        super(address);
    }
}
