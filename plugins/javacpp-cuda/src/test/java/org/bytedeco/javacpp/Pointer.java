package org.bytedeco.javacpp;

/** Test double of JavaCPP's Pointer: the same {@code address} field and getter. */
public class Pointer {
    protected long address;

    public Pointer() {
    }

    /** Not in JavaCPP: lets tests make a pointer at a given address. */
    protected Pointer(long address) {
        this.address = address;
    }

    public long address() {
        return address;
    }
}
