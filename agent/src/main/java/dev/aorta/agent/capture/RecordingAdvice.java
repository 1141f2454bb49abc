package dev.aorta.agent.capture;

/**
 * The advice that records calls, woven into the application's classes or taken out of them. {@link CaptureWindows}
 * weaves it before a window (or its warm-up) begins and takes it out once nothing is recorded, when
 * {@code between-windows=off}; the advice of iteration markers is never taken out, as markers drive the schedule.
 */
public interface RecordingAdvice {
    /**
     * Weaves the advice in ({@code true}) or takes it out, returning when the classes loaded now run the new code
     * (calls already inside a method finish in its old version). Does nothing when it is so already.
     */
    void setWoven(boolean woven);
}
