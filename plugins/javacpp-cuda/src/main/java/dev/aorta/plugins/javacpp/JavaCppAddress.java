package dev.aorta.plugins.javacpp;

import org.bytedeco.javacpp.Pointer;

/** The native address of a JavaCPP pointer (its public {@code address()}), 0 for null. */
public final class JavaCppAddress {
    private JavaCppAddress() {
    }

    public static long of(Pointer p) {
        return p == null ? 0 : p.address();
    }
}
