package dev.aorta.workloads.launchoverhead.pcie;

import dev.aorta.gpu.nvml.Nvml;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Chooses how PCIe throughput is sampled on this machine: NVML when a first query works, else
 * {@code nvidia-smi dmon}, else nothing, with both reasons. The NVML index is taken to be the CUDA device
 * index, which holds when {@code CUDA_VISIBLE_DEVICES} is unset and {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}
 * (NVML always enumerates by PCI bus id).
 */
public final class PcieMonitors {
    private PcieMonitors() {
    }

    /** A factory of one-shot monitors for the device, decided once. */
    public static Supplier<PcieMonitor> forDevice(int index) {
        String nvmlProblem;
        try {
            Nvml.Device device = Nvml.get().device(index);
            device.pcieRxKBps();
            return () -> new NvmlPcieMonitor(device, index);
        } catch (RuntimeException | LinkageError e) {
            nvmlProblem = "NVML: " + e.getMessage();
        }
        String smiProblem = nvidiaSmiProblem();
        if (smiProblem == null) {
            return () -> new DmonPcieMonitor(index);
        }
        String reason = "PCIe throughput not sampled: " + nvmlProblem + "; nvidia-smi: " + smiProblem;
        return () -> PcieMonitor.unavailable(reason);
    }

    private static String nvidiaSmiProblem() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "-L").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "nvidia-smi -L did not answer in 10 s";
            }
            return p.exitValue() == 0 ? null : "nvidia-smi -L failed: " + out;
        } catch (IOException e) {
            return "not found (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
