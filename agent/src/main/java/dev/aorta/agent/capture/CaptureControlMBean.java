package dev.aorta.agent.capture;

/** The agent's capture windows over JMX ({@code dev.aorta:type=Capture}), e.g. from JConsole or jmxterm. */
public interface CaptureControlMBean {
    /** Opens a window for {@code durationMs} (0: until {@link #close}); refused while one is open. */
    String capture(long durationMs);

    /** Closes the open window. */
    String close();

    /** The open window in words, or "none". */
    String getActiveWindow();

    /** The directory the agent writes to. */
    String getOutput();
}
