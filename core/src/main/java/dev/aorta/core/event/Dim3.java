package dev.aorta.core.event;

/** A CUDA grid or block shape. */
public record Dim3(int x, int y, int z) {
    public static final Dim3 NONE = new Dim3(0, 0, 0);

    public long volume() {
        return (long) x * y * z;
    }
}
