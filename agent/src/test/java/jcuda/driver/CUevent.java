package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUevent. */
public class CUevent extends NativePointerObject {
    public CUevent() {
    }
}
