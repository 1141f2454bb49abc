package dev.aorta.analyzer.trace;

import dev.aorta.core.event.ClockDomain;

import java.nio.file.Path;

/**
 * The time range one file's records cover on one of their clocks, for one rank: what {@link SameRunRule} compares.
 *
 * @param file    the file as given (two runs' files often share a name, so the name alone does not tell them apart)
 * @param records how many records lie in it, so the clock most of a file's records use can be told
 */
public record SourceSpan(Path file, ClockDomain clock, long startNs, long endNs, long records) {

    public long lengthNs() {
        return endNs - startNs;
    }

    /** This span with {@code ns} added to both ends and {@code clock} as its clock. */
    SourceSpan shifted(long ns, ClockDomain onto) {
        return new SourceSpan(file, onto, startNs + ns, endNs + ns, records);
    }

    /** The smallest span holding both (on this span's clock; the caller has put both on it). */
    SourceSpan union(SourceSpan other) {
        return new SourceSpan(file, clock, Math.min(startNs, other.startNs), Math.max(endNs, other.endNs),
                records + other.records);
    }

    /** The time between the two ranges; 0 when they overlap or touch. */
    long gapTo(SourceSpan other) {
        return Math.max(0, Math.max(other.startNs - endNs, startNs - other.endNs));
    }
}
