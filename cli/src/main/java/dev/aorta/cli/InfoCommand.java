package dev.aorta.cli;

import dev.aorta.gpu.GpuLibraries;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceInfo;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code aorta info}: what this machine offers for GPU work. Works without a GPU and says why there is none. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Print JVM, OS, GPUs, GPU libraries found and the environment variables that affect scheduling.")
final class InfoCommand implements Callable<Integer> {

    /** Variables that change how work is queued or communicated, by prefix or exact name. */
    static final String[] SCHEDULING_PREFIXES = {"CUDA_", "NCCL_", "HIP_", "ROCM_", "HSA_", "RCCL_", "GPU_MAX_HW_QUEUES",
            "AMD_SERIALIZE_", "TORCH_NCCL_", "NVSHMEM_", "OMP_NUM_THREADS"};

    @Override
    public Integer call() {
        PrintStream out = System.out;
        out.println("JVM      " + Runtime.version() + " (" + System.getProperty("java.vendor") + ") at "
                + System.getProperty("java.home"));
        out.println("OS       " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
        printGpus(out);
        out.println("Libraries");
        for (GpuLibraries.Found f : GpuLibraries.probe()) {
            out.printf("  %-12s %s%n", f.library(), f.loaded() ? f.version() + "  (" + f.where() + ")"
                    : "not available: " + f.where());
        }
        out.println("Scheduling environment");
        Map<String, String> env = schedulingEnvironment(System.getenv());
        if (env.isEmpty()) {
            out.println("  (none set)");
        }
        env.forEach((k, v) -> out.println("  " + k + "=" + v));
        return 0;
    }

    private static void printGpus(PrintStream out) {
        int count;
        try {
            count = CudaDevice.deviceCount();
        } catch (RuntimeException | LinkageError e) {
            String m = e.getMessage() == null ? e.toString() : e.getMessage();
            out.println("GPUs     " + (m.startsWith("no CUDA driver found") ? m : "no CUDA driver found: " + m));
            return;
        }
        out.println("GPUs     " + count + " (CUDA driver API " + (CudaDevice.driverVersion() / 1000) + "."
                + (CudaDevice.driverVersion() % 1000) / 10 + ")");
        for (int i = 0; i < count; i++) {
            try (CudaDevice d = CudaDevice.open(i)) {
                DeviceInfo g = d.info();
                out.printf("  %d: %s, %s, %d SMs, %d MiB, L2 %d MiB, %d copy engines, stream priorities %d..%d, PCI %s%n",
                        i, g.name(), g.arch(), g.multiprocessors(), g.totalMemoryBytes() >> 20, g.l2CacheBytes() >> 20,
                        g.asyncEngines(), g.greatestStreamPriority(), g.leastStreamPriority(), g.pciBusId());
            } catch (RuntimeException e) {
                out.println("  " + i + ": cannot open: " + e.getMessage());
            }
        }
    }

    static Map<String, String> schedulingEnvironment(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            for (String p : SCHEDULING_PREFIXES) {
                if (k.startsWith(p)) {
                    out.put(k, v);
                    break;
                }
            }
        });
        return out;
    }
}
