package org.bytedeco.cuda.cudart;

import org.bytedeco.javacpp.Pointer;

/** Test double of org.bytedeco.cuda.cudart.dim3. */
public class dim3 extends Pointer {
    public dim3() {
    }

    public dim3(long address) {
        super(address);
    }
}
