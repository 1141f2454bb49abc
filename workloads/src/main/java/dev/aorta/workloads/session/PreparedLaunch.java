package dev.aorta.workloads.session;

/** A kernel launch with fixed function, shape, stream and arguments; launch it as often as wanted. */
public interface PreparedLaunch {

    /** Enqueues the kernel; returns as soon as the driver accepted it. */
    void launch();

    /**
     * Sets int32 argument {@code index} (0-based, in the kernel's signature) for the launches from now on;
     * those already enqueued keep the value they were launched with (the driver copies arguments at launch).
     *
     * @throws IllegalArgumentException when that argument is not an int32
     */
    void setInt(int index, int value);
}
