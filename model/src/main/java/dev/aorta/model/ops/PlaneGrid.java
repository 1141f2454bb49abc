package dev.aorta.model.ops;

/**
 * The launch shape of the convolution module's per-plane passes (kernels/conv.cu): grid rows walk planes (a channel
 * of an image, a column-matrix row), the threads of a row walk positions within one, so that the kernels index with
 * 32-bit arithmetic and no divisions by the plane count.
 */
final class PlaneGrid {
    static final int BLOCK = 256;
    /** CUDA's limit on a grid's y extent; the kernels loop over the planes beyond it. */
    private static final int MAX_Y = 65_535;

    private PlaneGrid() {
    }

    /** Blocks across one plane of {@code positions} elements. */
    static int x(long positions) {
        return (int) Math.max(1, Math.min((positions + BLOCK - 1) / BLOCK, MAX_Y));
    }

    /** Grid rows for {@code planes} planes. */
    static int y(long planes) {
        return (int) Math.max(1, Math.min(planes, MAX_Y));
    }
}
