package dev.aorta.workloads.session;

import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.cuda.CudaDevice;

/** Opens the real session ({@link CudaGpuSession}), turning "no driver" into {@link GpuUnavailableException}. */
public final class GpuSessions {
    private GpuSessions() {
    }

    /** @throws GpuUnavailableException "no CUDA driver found: reason" when the driver cannot be used */
    public static GpuSession open(int device) {
        if (device < 0) {
            throw new IllegalArgumentException("--device must be 0 or more, got " + device);
        }
        try {
            CudaDevice.deviceCount();
        } catch (GpuException e) {
            throw new GpuUnavailableException(e.getMessage(), e);
        }
        return CudaGpuSession.open(device);
    }
}
