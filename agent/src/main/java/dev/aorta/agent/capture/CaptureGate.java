package dev.aorta.agent.capture;

/**
 * The hot path's one question, asked by {@code Recorder} as each intercepted call begins: is anything recorded now?
 * A plain static volatile so that with {@code between-windows=off} an intercepted call costs one volatile read
 * (a plain load on x86) and two branches, and no clock read, outside windows. Written only by {@link CaptureWindows}.
 */
public final class CaptureGate {
    /** Whether intercepted calls are recorded now. */
    public static volatile boolean recording = true;

    private CaptureGate() {
    }
}
