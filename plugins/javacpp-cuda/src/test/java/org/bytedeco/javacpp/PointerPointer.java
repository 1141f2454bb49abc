package org.bytedeco.javacpp;

/** Test double of JavaCPP's PointerPointer. */
public class PointerPointer extends Pointer {
    public PointerPointer() {
    }
}
