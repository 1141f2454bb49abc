package jcuda.driver;

import jcuda.Pointer;

/** Test double of jcuda.driver.CUdeviceptr. */
public class CUdeviceptr extends Pointer {
    public CUdeviceptr() {
    }
}
