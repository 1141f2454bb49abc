package dev.aorta.analyzer.read;

import dev.aorta.core.spi.ServiceProviders;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** The trace readers on the class path, and the choice of one by content. */
public final class TraceReaders {
    private final List<TraceReader> readers = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();

    /**
     * The readers registered with {@link ServiceLoader} in the current thread's context class loader, which the CLI
     * extends with the jars of the plugins folder: the built-in readers come first, so a plugin adds formats.
     */
    public static TraceReaders installed() {
        TraceReaders r = new TraceReaders();
        r.readers.addAll(ServiceProviders.load(TraceReader.class, Thread.currentThread().getContextClassLoader(),
                r.skipped::add));
        return r;
    }

    /** One line per reader plugin that could not be loaded. */
    public List<String> skipped() {
        return List.copyOf(skipped);
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
