package dev.aorta.gpu;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nvml.Nvml;
import dev.aorta.gpu.nvrtc.Nvrtc;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Which GPU libraries this process can load, their versions and paths, or why each cannot be loaded. */
public final class GpuLibraries {
    private GpuLibraries() {
    }

    /**
     * One library's discovery result.
     *
     * @param version the library's own version, or null when it could not be loaded
     * @param where   the file loaded, or the reason it was not
     */
    public record Found(String library, String version, String where) {
        public boolean loaded() {
            return version != null;
        }
    }

    /** Probes the CUDA driver, NVML, cuBLAS, NVRTC, NCCL and CUPTI; never throws. */
    public static List<Found> probe() {
        List<Found> out = new ArrayList<>();
        out.add(probe("CUDA driver", () -> {
            int v = CudaDevice.driverVersion();
            return new String[] {(v / 1000) + "." + (v % 1000) / 10, "libcuda.so.1 (via JCuda)"};
        }));
        out.add(probe("NVML", () -> new String[] {"driver " + Nvml.get().driverVersion(),
                Nvml.get().library().path().toString()}));
        out.add(probe("cuBLAS", () -> new String[] {Cublas.version(), Cublas.nativeLibrary().path().toString()}));
        out.add(probe("NVRTC", () -> new String[] {Nvrtc.get().version(), Nvrtc.get().library().path().toString()}));
        out.add(probe("NCCL", () -> new String[] {Nccl.get().version(), Nccl.get().library().path().toString()}));
        out.add(probe("CUPTI", () -> new String[] {"API " + CuptiTracer.version(),
                CuptiTracer.nativeLibrary().path().toString()}));
        return out;
    }

    private static Found probe(String name, Supplier<String[]> versionAndPath) {
        try {
            String[] vp = versionAndPath.get();
            return new Found(name, vp[0], vp[1]);
        } catch (Throwable t) {
            String m = t.getMessage() == null ? t.toString() : t.getMessage();
            return new Found(name, null, m.lines().findFirst().orElse(m));
        }
    }
}
