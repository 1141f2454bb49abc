package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import java.io.EOFException;
import java.util.zip.ZipException;

/**
 * The warning for a file whose content stops before its end: it names the file, says in plain words whether the
 * file is truncated (its gzip data or its document ends early) or corrupt (cannot be decompressed or parsed), where
 * reading stopped and what was kept. The JDK's own words ("Unexpected end of ZLIB input stream") say nothing about
 * the file to a user, so they are not repeated; a parser's reason is kept only where it is the detail that helps.
 */
public final class PartialReadWarning {
    private PartialReadWarning() {
    }

    /**
     * @param position where reading stopped, e.g. "at byte 1234 of the decompressed content" or "after line 12"
     * @param kept     what was kept, e.g. "the 1234 trace events read before it"
     */
    public static String of(TraceSource source, Throwable cause, String position, String kept) {
        return source.path() + ": " + problem(source, cause, position) + "; kept " + kept;
    }

    /** Where a streaming parser stopped: its byte offset in what it read, which is decompressed for gzip files. */
    public static String atByte(TraceSource source, long offset) {
        return "at byte " + offset + " of the " + (source.isGzip() ? "decompressed " : "") + "content";
    }

    private static String problem(TraceSource source, Throwable cause, String position) {
        if (cause instanceof EOFException) {
            // GZIPInputStream's "Unexpected end of ZLIB input stream": the compressed data stops mid-stream
            return "the file is truncated: its " + (source.isGzip() ? "gzip data" : "content") + " ends early ("
                    + position + ")";
        }
        if (cause instanceof ZipException) {
            return "the file is corrupt: its gzip data cannot be decompressed (" + position + ")";
        }
        if (endsEarly(cause)) {
            return "the file is truncated: its JSON ends early (" + position + ")";
        }
        if (cause instanceof JsonProcessingException json) {
            return "the file is not valid JSON (" + position + ": " + firstLine(json.getOriginalMessage()) + ")";
        }
        return "the file is malformed (" + position + ": " + firstLine(cause.getMessage() == null
                ? cause.getClass().getSimpleName() : cause.getMessage()) + ")";
    }

    /** Jackson reports a document cut short as JsonEOFException, or in some parser states only by its message. */
    private static boolean endsEarly(Throwable cause) {
        return cause instanceof JsonEOFException || cause instanceof JsonProcessingException json
                && json.getOriginalMessage() != null && json.getOriginalMessage().startsWith("Unexpected end-of-input");
    }

    private static String firstLine(String message) {
        return message.lines().findFirst().orElse(message);
    }
}
