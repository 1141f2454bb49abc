package dev.aorta.workloads.gpu;

/** A kernel launch with fixed function, shape, stream and arguments; launch it as often as wanted. */
public interface PreparedLaunch {

    /** Enqueues the kernel; returns as soon as the driver accepted it. */
    void launch();
}
