package dev.aorta.model.ops;

/**
 * The launch shape of the convolution module's per-plane passes (kernels/conv.cu): grid rows walk planes (a channel
 * of an image, a column-matrix row), the threads of a row walk positions within one, so that the kernels index with
 * 32-bit arithmetic and no divisions by the plane count.
 */
final class PlaneGrid {
    static final int BLOCK = 256;
    /**
     * CUDA's limit on a grid's y extent; the kernels loop over the planes beyond it. Also the cap on x (whose own
     * limit is 2^31 - 1), as the x loops are grid-stride too and more blocks across a plane would add nothing.
     */
    private static final int MAX_Y = 65_535;
    /**
     * Blocks per launch at most (about 30 per SM of an H100): beyond that each block takes several planes in turn,
     * as a launch of one short-lived block per plane spent its time starting blocks (im2col over 254 000 blocks of
     * one element per thread moved ~480 GB/s on an H200).
     */
    private static final int MAX_BLOCKS = 4096;

    private PlaneGrid() {
    }

    /** Blocks across one plane of {@code positions} elements, one per thread. */
    static int x(long positions) {
        return x(positions, 1);
    }

    /** Blocks across one plane of {@code positions} elements, {@code perThread} per thread. */
    static int x(long positions, int perThread) {
        long perBlock = (long) BLOCK * perThread;
        return (int) Math.max(1, Math.min((positions + perBlock - 1) / perBlock, MAX_Y));
    }

    /** Grid rows for {@code planes} planes of {@code gridX} blocks each. */
    static int y(long planes, int gridX) {
        return (int) Math.max(1, Math.min(Math.min(planes, MAX_Y), MAX_BLOCKS / gridX));
    }
}
