package dev.aorta.agent.capture;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

/** The JMX face of {@link CaptureWindows}; a refusal reaches the JMX client as the exception's one-line message. */
public final class CaptureControl implements CaptureControlMBean {
    public static final String NAME = "dev.aorta:type=Capture";

    private final CaptureWindows windows;
    private final String output;

    public CaptureControl(CaptureWindows windows, String output) {
        this.windows = windows;
        this.output = output;
    }

    /** Registers it in the platform MBean server (replacing one left by an earlier agent start). */
    public void register() throws Exception {
        ObjectName name = new ObjectName(NAME);
        var server = ManagementFactory.getPlatformMBeanServer();
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
        server.registerMBean(this, name);
    }

    @Override
    public String capture(long durationMs) {
        if (durationMs < 0) {
            throw new IllegalArgumentException("durationMs: expected >= 0 (0 = until close), got " + durationMs);
        }
        return windows.open("JMX", durationMs * 1_000_000L);
    }

    @Override
    public String close() {
        return windows.close();
    }

    @Override
    public String getActiveWindow() {
        String w = windows.activeWindow();
        return w == null ? "none" : w;
    }

    @Override
    public String getOutput() {
        return output;
    }
}
