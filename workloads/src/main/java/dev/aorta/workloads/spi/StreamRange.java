package dev.aorta.workloads.spi;

/** The stream counts a workload is defined for, both ends included. */
public record StreamRange(int min, int max) {
    public StreamRange {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("bad stream range " + min + ".." + max);
        }
    }

    public boolean contains(int streams) {
        return streams >= min && streams <= max;
    }

    @Override
    public String toString() {
        return min + ".." + max;
    }
}
