package dev.aorta.model;

import java.util.Arrays;

/**
 * Argument checks every op makes before it launches anything, so that a bad call fails on the host with a
 * message naming the op, the operand and both shapes (or dtypes) instead of as a device fault later.
 */
public final class Shapes {
    /** In an expected shape: any size is fine in this dimension. */
    public static final int ANY = -1;

    private Shapes() {
    }

    public static String format(int[] shape) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < shape.length; i++) {
            b.append(i == 0 ? "" : ", ").append(shape[i] == ANY ? "*" : Integer.toString(shape[i]));
        }
        return b.append(']').toString();
    }

    public static long numel(int[] shape) {
        long n = 1;
        for (int d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("shape " + format(shape) + " has a negative size");
            }
            n *= d;
        }
        return n;
    }

    /** {@code t} must have {@code expected}'s rank and its sizes, except where {@code expected} says {@link #ANY}. */
    public static void require(String op, String operand, Tensor t, int... expected) {
        int[] actual = t.shape();
        boolean ok = actual.length == expected.length;
        for (int i = 0; ok && i < actual.length; i++) {
            ok = expected[i] == ANY || expected[i] == actual[i];
        }
        if (!ok) {
            throw new IllegalArgumentException(op + ": operand " + operand + " has shape " + format(actual)
                    + ", expected " + format(expected));
        }
    }

    /** {@code b} must have exactly {@code a}'s shape. */
    public static void requireSame(String op, String nameA, Tensor a, String nameB, Tensor b) {
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException(op + ": operand " + nameB + " has shape " + format(b.shape())
                    + ", expected the shape of " + nameA + " " + format(a.shape()));
        }
    }

    public static void requireRank(String op, String operand, Tensor t, int rank) {
        if (t.rank() != rank) {
            throw new IllegalArgumentException(op + ": operand " + operand + " has shape " + format(t.shape())
                    + ", expected " + rank + " dimensions");
        }
    }

    public static void requireDtype(String op, String operand, Tensor t, DType expected) {
        if (t.dtype() != expected) {
            throw new IllegalArgumentException(op + ": operand " + operand + " is " + t.dtype() + " "
                    + format(t.shape()) + ", expected " + expected);
        }
    }

    /** The kernels index rows densely: views that skip elements must be copied first. */
    public static void requireContiguous(String op, String operand, Tensor t) {
        if (!t.isContiguous()) {
            throw new IllegalArgumentException(op + ": operand " + operand + " " + format(t.shape())
                    + " is a strided view (strides " + Arrays.toString(t.strides()) + "); this op needs it contiguous");
        }
    }
}
