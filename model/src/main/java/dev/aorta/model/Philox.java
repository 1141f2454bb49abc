package dev.aorta.model;

/**
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the counter-based
 * generator behind dropout: the random numbers for element i are a pure function of (seed, offset, i), so
 * the backward pass regenerates the forward mask instead of storing it, and a run is reproducible from its
 * seed. kernels/dropout.cu computes the same function; this copy is the host oracle its tests compare with.
 */
public final class Philox {
    private static final int M0 = 0xD2511F53;
    private static final int M1 = 0xCD9E8D57;
    private static final int W0 = 0x9E3779B9;
    private static final int W1 = 0xBB67AE85;

    private Philox() {
    }

    /** The four 32-bit outputs for counter (c0, c1, c2, c3) and key (k0, k1). */
    public static int[] block(int c0, int c1, int c2, int c3, int k0, int k1) {
        for (int round = 0; round < 10; round++) {
            long p0 = (M0 & 0xFFFFFFFFL) * (c0 & 0xFFFFFFFFL);
            long p1 = (M1 & 0xFFFFFFFFL) * (c2 & 0xFFFFFFFFL);
            int hi0 = (int) (p0 >>> 32);
            int lo0 = (int) p0;
            int hi1 = (int) (p1 >>> 32);
            int lo1 = (int) p1;
            int n0 = hi1 ^ c1 ^ k0;
            int n2 = hi0 ^ c3 ^ k1;
            c0 = n0;
            c1 = lo1;
            c2 = n2;
            c3 = lo0;
            k0 += W0;
            k1 += W1;
        }
        return new int[] {c0, c1, c2, c3};
    }

    /**
     * The uniform number in [0, 1) for element {@code i}: element i uses output i % 4 of the block whose counter
     * is (i / 4 low word, i / 4 high word, offset low word, offset high word), key = seed's two words.
     */
    public static float uniform(long seed, long offset, long i) {
        long block = i >>> 2;
        int[] r = block((int) block, (int) (block >>> 32), (int) offset, (int) (offset >>> 32), (int) seed,
                (int) (seed >>> 32));
        return toUnit(r[(int) (i & 3)]);
    }

    /** The top 24 bits as a float in [0, 1), exactly as the kernel converts. */
    public static float toUnit(int bits) {
        return (bits >>> 8) * 0x1.0p-24f;
    }
}
