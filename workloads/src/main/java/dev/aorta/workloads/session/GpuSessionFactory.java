package dev.aorta.workloads.session;

/** Opens a session on a device; the CLI takes one so that tests can hand it a test double. */
@FunctionalInterface
public interface GpuSessionFactory {
    /** @throws GpuUnavailableException when there is no usable GPU, driver or runtime */
    GpuSession open(int device);
}
