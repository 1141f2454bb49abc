package jcuda.runtime;

import jcuda.NativePointerObject;

/** Test double of jcuda.runtime.cudaStream_t. */
public class cudaStream_t extends NativePointerObject {
    public cudaStream_t() {
    }
}
