package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUstream. */
public class CUstream extends NativePointerObject {
    public CUstream() {
    }
}
