package dev.aorta.model;

/**
 * Deterministic parameter initialisation: the values depend only on (seed, parameter name, index), never on
 * the order parameters are created in or on the thread, so a model built twice starts from the same weights.
 * The distributions follow PyTorch's defaults (Linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias,
 * Embedding: N(0, 1), LayerNorm: ones and zeros); the streams are our own (SplitMix64), so a PyTorch reference
 * starts from the same weights by loading our {@link ParameterFile}, not by reseeding.
 */
public final class Init {
    private Init() {
    }

    public static HostTensor uniform(long seed, String name, float bound, int... shape) {
        float[] v = new float[(int) Shapes.numel(shape)];
        long state = streamSeed(seed, name);
        for (int i = 0; i < v.length; i++) {
            state += GOLDEN;
            v[i] = (float) ((2 * unit(mix(state)) - 1) * bound);
        }
        return HostTensor.ofFloats(DType.FP32, shape, v);
    }

    /** Normal values by Box-Muller on pairs of uniforms. */
    public static HostTensor normal(long seed, String name, float std, int... shape) {
        float[] v = new float[(int) Shapes.numel(shape)];
        long state = streamSeed(seed, name);
        for (int i = 0; i < v.length; i += 2) {
            state += GOLDEN;
            double u1 = 1 - unit(mix(state)); // (0, 1]: log stays finite
            state += GOLDEN;
            double u2 = unit(mix(state));
            double r = Math.sqrt(-2 * Math.log(u1));
            v[i] = (float) (std * r * Math.cos(2 * Math.PI * u2));
            if (i + 1 < v.length) {
                v[i + 1] = (float) (std * r * Math.sin(2 * Math.PI * u2));
            }
        }
        return HostTensor.ofFloats(DType.FP32, shape, v);
    }

    public static HostTensor constant(float value, int... shape) {
        float[] v = new float[(int) Shapes.numel(shape)];
        java.util.Arrays.fill(v, value);
        return HostTensor.ofFloats(DType.FP32, shape, v);
    }

    /** PyTorch's Linear default: kaiming_uniform with a = sqrt(5) works out to a bound of 1/sqrt(fan_in). */
    public static float linearBound(int fanIn) {
        return (float) (1 / Math.sqrt(fanIn));
    }

    /** xavier_uniform_'s bound, which PyTorch's MultiheadAttention uses for its input projection. */
    public static float xavierBound(int fanIn, int fanOut) {
        return (float) Math.sqrt(6.0 / (fanIn + fanOut));
    }

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private static long streamSeed(long seed, String name) {
        long h = seed;
        for (int i = 0; i < name.length(); i++) {
            h = mix(h + GOLDEN + name.charAt(i));
        }
        return h;
    }

    /** SplitMix64's finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The top 53 bits as a double in [0, 1). */
    private static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }
}
