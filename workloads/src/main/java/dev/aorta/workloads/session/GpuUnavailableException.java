package dev.aorta.workloads.session;

/** No GPU session can be opened here; the message is one sentence saying why, for the user. */
public final class GpuUnavailableException extends RuntimeException {
    public GpuUnavailableException(String message) {
        super(message);
    }

    public GpuUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
