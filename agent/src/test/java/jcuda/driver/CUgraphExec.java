package jcuda.driver;

import jcuda.NativePointerObject;

/** Test double of jcuda.driver.CUgraphExec. */
public class CUgraphExec extends NativePointerObject {
    public CUgraphExec() {
    }
}
