package dev.aorta.analyzer.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** The trace readers on the class path, and the choice of one by content. */
public final class TraceReaders {
    private final List<TraceReader> readers = new ArrayList<>();

    /** The readers registered with {@link ServiceLoader}. */
    public static TraceReaders installed() {
        TraceReaders r = new TraceReaders();
        ServiceLoader.load(TraceReader.class, TraceReaders.class.getClassLoader()).forEach(r.readers::add);
        return r;
    }

    /** The reader for {@code source}, or an exception naming the file and the formats tried. */
    public TraceReader readerFor(TraceSource source) throws TraceFormatException {
        if (source.isEmpty()) {
            throw new TraceFormatException(source.path() + ": the file is empty; expected a trace ("
                    + formats() + ")");
        }
        for (TraceReader reader : readers) {
            if (reader.accepts(source)) {
                return reader;
            }
        }
        throw new TraceFormatException(source.path() + ": unknown trace format; expected one of " + formats());
    }

    private String formats() {
        return String.join(", ", readers.stream().map(TraceReader::format).toList());
    }
}
