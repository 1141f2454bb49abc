package dev.aorta.agent.device;

/** Where device timestamps come from. The drain thread asks it to flush at iteration ends and at exit. */
public interface DeviceActivitySource {
    /** "cupti", or "none" when no device timestamps are recorded. */
    String name();

    /** Delivers what the device has finished so far. */
    void flush();

    void stop();

    /**
     * Outside capture windows: delivers what it holds and stops observing the device (CUPTI unsubscribes), so
     * that the application runs as without it. {@link #resume} starts it again; both may be called many times.
     */
    default void pause() {
    }

    default void resume() {
    }

    /** Called every drain cycle (cheap sources turn finished work into records here). */
    default void poll() {
    }

    /** A stream the application created: its device records should carry this native address. */
    default void streamCreated(long stream) {
    }

    DeviceActivitySource NONE = new DeviceActivitySource() {
        @Override
        public String name() {
            return "none";
        }

        @Override
        public void flush() {
        }

        @Override
        public void stop() {
        }
    };
}
