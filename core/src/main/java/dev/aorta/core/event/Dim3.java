package dev.aorta.core.event;

/**
 * A CUDA grid or block shape.
 *
 * <p>{@code equals} and {@code hashCode} are written out, with the values a record's generated ones give (the hash
 * is {@code (31 * x + y) * 31 + z}, as {@code java.lang.runtime.ObjectMethods} combines the components): readers
 * intern the shape of every device record by them, and the generated ones are bound through {@code invokedynamic} at
 * first use, which spun 14 method-handle classes while a trace was being read and kept them slow until the
 * optimising JIT tier, which short analyses run without.
 */
public record Dim3(int x, int y, int z) {
    public static final Dim3 NONE = new Dim3(0, 0, 0);

    public long volume() {
        return (long) x * y * z;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Dim3 d && d.x == x && d.y == y && d.z == z;
    }

    @Override
    public int hashCode() {
        return (31 * x + y) * 31 + z;
    }
}
