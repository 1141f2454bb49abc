package dev.aorta.workloads.gpu;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.lang.reflect.InvocationTargetException;

/**
 * Opens the real session: checks that the CUDA driver library loads, then hands over to
 * {@code dev.aorta.workloads.gpu.CudaGpuSession.open(int)} (the adapter over the {@code gpu} module).
 * The adapter is looked up by name so that this module builds and tests without it.
 */
public final class GpuSessions {
    static final String DRIVER_LIBRARY = "libcuda.so.1";
    static final String ADAPTER_CLASS = "dev.aorta.workloads.gpu.CudaGpuSession";

    private GpuSessions() {
    }

    public static GpuSession open(int device) {
        if (device < 0) {
            throw new IllegalArgumentException("--device must be 0 or more, got " + device);
        }
        requireDriver();
        Class<?> adapter;
        try {
            adapter = Class.forName(ADAPTER_CLASS);
        } catch (ClassNotFoundException e) {
            throw new GpuUnavailableException("no CUDA runtime in this build: " + ADAPTER_CLASS
                    + " is not on the class path", e);
        }
        try {
            return (GpuSession) adapter.getMethod("open", int.class).invoke(null, device);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new GpuUnavailableException("opening device " + device + " failed: " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new GpuUnavailableException(ADAPTER_CLASS + " has no public static open(int): " + e, e);
        }
    }

    /** Fails with "no CUDA driver found: reason" when the driver library cannot be loaded. */
    static void requireDriver() {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(DRIVER_LIBRARY, arena);
        } catch (IllegalArgumentException e) {
            throw new GpuUnavailableException("no CUDA driver found: " + DRIVER_LIBRARY
                    + " cannot be loaded (is an NVIDIA driver installed and on the library path?)", e);
        }
    }
}
