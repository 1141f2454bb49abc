package jcuda.runtime;

import jcuda.NativePointerObject;

/** Test double of jcuda.runtime.cudaEvent_t. */
public class cudaEvent_t extends NativePointerObject {
    public cudaEvent_t() {
    }
}
