package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUmodule. */
public class CUmodule extends NativePointerObject {
    public CUmodule() {
    }
}
