package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.aorta.analyzer.trace.TraceSink;

import java.io.IOException;
import java.io.OutputStream;
import java.util.function.LongSupplier;

/**
 * A Chrome-trace-shaped JSON file ({@code {"traceEvents": [...], ...}}, plain or gzip) opened and walked the way the
 * Kineto and aorta Chrome-trace readers both need: bytes that are not UTF-8 repaired (and reported), anything but an
 * object refused, each top-level field handed to the reader, and a file that stops early or breaks off kept up to
 * where it broke, with a warning saying where and how many trace events were read before it.
 */
final class TraceEventsJson {
    /** The parsers' factory; the caller's stream is closed by the caller (a gzip stream is read to its end first). */
    static final JsonFactory JSON = JsonFactory.builder().disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();

    /** A top-level field of the trace object: the parser is on its value's first token; read or skip it whole. */
    interface Field {
        void read(String name, JsonParser p) throws IOException;
    }

    private TraceEventsJson() {
    }

    /**
     * Reads the file's top-level fields in order. A file that is not a JSON object is an error naming it; one that
     * breaks off (truncated, corrupt, malformed) is a warning, what was read before staying with the sink.
     *
     * @param eventsRead how many trace events the fields have read so far, for the warning
     */
    static void read(TraceSource source, TraceSink sink, Field fields, LongSupplier eventsRead) throws IOException {
        try (Utf8Repair in = new Utf8Repair(source.open()); JsonParser p = JSON.createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new TraceFormatException(source.path() + ": expected a JSON object with \"traceEvents\"");
            }
            try {
                String field;
                while ((field = p.nextFieldName()) != null) {
                    p.nextToken();
                    fields.read(field, p);
                }
                // gzip checks its checksum only at the end of the data, after the JSON has ended: a flipped byte in
                // a timestamp is found only by reading on
                in.transferTo(OutputStream.nullOutputStream());
            } catch (IOException | RuntimeException e) {
                sink.warning(PartialReadWarning.of(source, e,
                        PartialReadWarning.atByte(source, p.currentLocation().getByteOffset()),
                        "the " + eventsRead.getAsLong() + " trace events read before it"));
            }
            if (in.warning(source) != null) {
                sink.warning(in.warning(source));
            }
        }
    }
}
