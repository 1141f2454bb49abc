package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUfunction. */
public class CUfunction extends NativePointerObject {
    public CUfunction() {
    }
}
