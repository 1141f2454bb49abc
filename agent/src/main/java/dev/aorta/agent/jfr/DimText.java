package dev.aorta.agent.jfr;

/**
 * The {@code "XxYxZ"} text of a launch's grid or block for its JFR event, from a small direct-mapped cache: an
 * application launches the same few shapes again and again, so a string is built only the first time a shape is
 * seen (or after another shape took its slot), and committing a launch event allocates nothing. One per sink,
 * used by the drain thread only.
 */
final class DimText {
    private static final int SLOTS = 256;

    private final long[] xs = new long[SLOTS];
    private final long[] ys = new long[SLOTS];
    private final long[] zs = new long[SLOTS];
    private final String[] texts = new String[SLOTS];

    String of(long x, long y, long z) {
        long h = x * 0x9E3779B97F4A7C15L + y * 0xC2B2AE3D27D4EB4FL + z * 0x165667B19E3779F9L;
        int slot = (int) (h ^ (h >>> 32)) & (SLOTS - 1);
        String t = texts[slot];
        if (t != null && xs[slot] == x && ys[slot] == y && zs[slot] == z) {
            return t;
        }
        t = x + "x" + y + "x" + z;
        xs[slot] = x;
        ys[slot] = y;
        zs[slot] = z;
        texts[slot] = t;
        return t;
    }
}
