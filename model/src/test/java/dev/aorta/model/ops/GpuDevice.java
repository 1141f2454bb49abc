package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.CudaDevice;
import org.junit.jupiter.api.Assumptions;

/** The GPU tests' device. */
final class GpuDevice {
    private GpuDevice() {
    }

    /** Device 0, or the test aborted (a skip) with why there is none. */
    static CudaDevice openOrSkip() {
        try {
            return CudaDevice.open(0);
        } catch (RuntimeException | LinkageError e) {
            return Assumptions.abort("no GPU here: " + e.getMessage());
        }
    }
}
