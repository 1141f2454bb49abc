package org.bytedeco.cuda.cudart;

import org.bytedeco.javacpp.Pointer;

/** Test double of org.bytedeco.cuda.cudart.CUevent_st. */
public class CUevent_st extends Pointer {
    public CUevent_st() {
    }

    public CUevent_st(long address) {
        super(address);
    }
}
