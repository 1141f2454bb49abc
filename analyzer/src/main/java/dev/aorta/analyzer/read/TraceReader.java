package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;

import java.io.IOException;

/**
 * Reads one trace format into the event model. Implementations are found with {@link java.util.ServiceLoader}
 * (list them in {@code META-INF/services/dev.aorta.analyzer.read.TraceReader}) and chosen by content:
 * the first reader whose {@link #accepts} says yes reads the file.
 *
 * <p>A reader streams its input, emits every record it could read, reports incomplete input (a truncated
 * gzip, JSON or JSONL of a killed run) through {@link TraceSink#warning} naming file and offset, and throws
 * {@link TraceFormatException} only when the input is not of its format at all or lacks what it requires.
 *
 * <p>The files of a trace are read at once, on several threads: {@link #read} may run for several files at the same
 * time, so a reader keeps nothing between calls.
 */
public interface TraceReader {
    /** A short name of the format, e.g. "kineto". */
    String format();

    /** Whether {@code source} is of this format, judged from its first bytes. */
    boolean accepts(TraceSource source);

    void read(TraceSource source, TraceSink sink) throws IOException;
}
