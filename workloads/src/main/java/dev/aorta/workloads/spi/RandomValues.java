package dev.aorta.workloads.spi;

/**
 * The values {@link WorkloadContext#randomBuffer} fills a buffer with (kernels/fill.cu's uniform_pm1), reproduced
 * bit for bit on the host for the workloads' correctness checks: a splitmix64 hash of (seed, index) mapped to 24
 * random bits in [-1, 1), so any buffer size and launch shape give the same data for the same seed.
 */
public final class RandomValues {
    private RandomValues() {
    }

    /** Element {@code index} of an fp32 buffer filled with {@code seed} (bf16 and fp16 buffers hold it rounded). */
    public static float uniform(long index, int seed) {
        long z = index + 0x9E3779B97F4A7C15L * (Integer.toUnsignedLong(seed) + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (float) (z >>> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
}
