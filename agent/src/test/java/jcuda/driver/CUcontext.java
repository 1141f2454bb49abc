package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUcontext. */
public class CUcontext extends NativePointerObject {
    public CUcontext() {
    }
}
