package dev.aorta.trainer.data;

/**
 * A counter-based random source: value n of stream {@code key} is a pure function of (key, n), SplitMix64's
 * finaliser applied to key + (n + 1)·γ. Any sample can therefore be generated alone, by any thread, in any order,
 * and always comes out the same; that is what makes the dataset deterministic per sample and lets host workers
 * fill a batch in parallel.
 */
final class CounterRandom {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

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
     * Standard normal n of stream {@code key}, by the ziggurat ({@link NormalZiggurat}) from value n; a draw the
     * ziggurat does not accept at once (about 1 in 36) continues with values n of the streams {@code key(key, 1)},
     * {@code key(key, 2)}, ..., so the result stays a function of (key, n) alone.
     */
    static float normal(long key, long n) {
        long first = bits(key, n);
        double x = NormalZiggurat.accepted(first);
        if (!Double.isNaN(x)) {
            return (float) x;
        }
        return (float) NormalZiggurat.sample(first, new NormalZiggurat.Bits() {
            private long retry;

            @Override
            public long next() {
                return bits(key(key, ++retry), n);
            }
        });
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
