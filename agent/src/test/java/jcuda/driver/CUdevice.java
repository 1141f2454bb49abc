package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUdevice. */
public class CUdevice extends NativePointerObject {
    public CUdevice() {
    }
}
