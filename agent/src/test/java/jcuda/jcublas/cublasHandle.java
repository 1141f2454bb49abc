package jcuda.jcublas;

import jcuda.NativePointerObject;

/** Test double of jcuda.jcublas.cublasHandle. */
public class cublasHandle extends NativePointerObject {
    public cublasHandle() {
    }
}
