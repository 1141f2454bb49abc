package dev.aorta.trainer.plan;

/** Elements [start, end) of a flat parameter. */
public record ElementRange(long start, long end) {
    public ElementRange {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("element range [" + start + ", " + end + ")");
        }
    }

    public long length() {
        return end - start;
    }
}
