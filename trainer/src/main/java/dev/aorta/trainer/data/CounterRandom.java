package dev.aorta.trainer.data;

/**
 * A counter-based random source: value n of stream {@code key} is a pure function of (key, n), SplitMix64's
 * finaliser applied to key + (n + 1)·γ. Any sample can therefore be generated alone, by any thread, in any order,
 * and always comes out the same; that is what makes the dataset deterministic per sample and lets host workers
 * fill a batch in parallel.
 */
final class CounterRandom {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final double TWO_PI = 2 * Math.PI;

    private CounterRandom() {
    }

    /** A stream key from a seed and a stream number (so that dense, ids, targets and weights never share values). */
    static long key(long seed, long stream) {
        return mix(mix(seed) ^ (stream * GOLDEN_GAMMA));
    }

    /** 64 random bits, value n of stream {@code key}. */
    static long bits(long key, long n) {
        return mix(key + (n + 1) * GOLDEN_GAMMA);
    }

    /** Uniform in [0, 1) with 24 random bits (every such float is exactly representable). */
    static float uniform(long key, long n) {
        return (bits(key, n) >>> 40) * 0x1.0p-24f;
    }

    /** Uniform integer in [0, bound), by the multiply-shift map of 32 random bits (bias below 2^-32 · bound). */
    static int below(long key, long n, int bound) {
        return (int) (((bits(key, n) >>> 32) * bound) >>> 32);
    }

    /**
     * Standard normals n and n + 1 (n even) by Box-Muller from value n / 2's two 32-bit halves, written to
     * {@code out[at]} and {@code out[at + 1]}; {@code count} 1 writes only the first (an odd-length tail).
     */
    static void normals(long key, long n, float[] out, int at, int count) {
        long b = bits(key, n >>> 1);
        double u1 = ((b >>> 32) + 1) * 0x1.0p-32;          // (0, 1]: log stays finite
        double u2 = (b & 0xFFFFFFFFL) * 0x1.0p-32;
        double r = Math.sqrt(-2 * Math.log(u1));
        out[at] = (float) (r * Math.cos(TWO_PI * u2));
        if (count > 1) {
            out[at + 1] = (float) (r * Math.sin(TWO_PI * u2));
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
