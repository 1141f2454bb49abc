package dev.aorta.analyzer.read;

import java.io.IOException;

/** A file that cannot be read as a trace: its message names the file and what was expected. */
public class TraceFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public TraceFormatException(String message) {
        super(message);
    }
}
