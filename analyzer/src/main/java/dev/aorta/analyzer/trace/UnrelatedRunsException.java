package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.read.TraceFormatException;

/**
 * Files given together that cannot be one run's timeline. Unlike an unreadable file, which is left out with a
 * warning, this stops the command: leaving one of the files out would pick a run for the user.
 */
public final class UnrelatedRunsException extends TraceFormatException {
    private static final long serialVersionUID = 1L;

    public UnrelatedRunsException(String message) {
        super(message);
    }
}
