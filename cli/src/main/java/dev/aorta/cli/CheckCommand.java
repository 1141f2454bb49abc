package dev.aorta.cli;

import dev.aorta.cli.check.CheckResult;
import dev.aorta.cli.check.GpuCheck;
import dev.aorta.gpu.cuda.CudaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code aorta check}: the GPU runtime's self-check (scripts/gpu-check.sh runs it with the C launch baseline). */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Check the GPU runtime on this machine: libraries, NVRTC and cuBLAS correctness, GEMM "
                + "throughput, launch cost, NCCL, memory accounting, CUPTI. Prints a table; exit 1 if a check fails.")
final class CheckCommand implements Callable<Integer> {
    @Option(names = "--device", defaultValue = "0", description = "GPU ordinal (default ${DEFAULT-VALUE}).")
    int device;

    @Option(names = "--launches", defaultValue = "20000",
            description = "Kernel launches per timed repetition of the launch-cost loop (default ${DEFAULT-VALUE}).")
    int launches;

    @Option(names = "--repetitions", defaultValue = "7",
            description = "Timed repetitions of the launch-cost loop; the median is reported (default ${DEFAULT-VALUE}).")
    int repetitions;

    @Option(names = "--c-launch-loop", paramLabel = "LIB",
            description = "Shared library built from scripts/bench/launch_loop.c: the C cuLaunchKernel loop our "
                    + "launch path is compared with, in this process (scripts/gpu-check.sh builds it).")
    Path cLaunchLoop;

    @Option(names = "--gemm-size", defaultValue = "8192", description = "M=N=K of the throughput GEMMs (default ${DEFAULT-VALUE}).")
    int gemmSize;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() {
        atLeast("--device", device, 0);
        atLeast("--launches", launches, 100);
        atLeast("--repetitions", repetitions, 1);
        atLeast("--gemm-size", gemmSize, 64);
        CudaDevice.deviceCount(); // no driver: one clear sentence from the error handler, before any table
        List<CheckResult> rows = new GpuCheck(new GpuCheck.Options(device, launches, repetitions, cLaunchLoop, gemmSize,
                verbose), System.err).run();
        return GpuCheck.printTable(rows, System.out) ? 0 : 1;
    }

    private static void atLeast(String option, int value, int minimum) {
        if (value < minimum) {
            throw new IllegalArgumentException(option + " must be " + minimum + " or more, got " + value);
        }
    }
}
