package org.bytedeco.cuda.cudart;

import org.bytedeco.javacpp.Pointer;

/** Test double of org.bytedeco.cuda.cudart.CUstream_st. */
public class CUstream_st extends Pointer {
    public CUstream_st() {
    }

    public CUstream_st(long address) {
        super(address);
    }
}
