package dev.aorta.workloads.launchoverhead.pcie;

import dev.aorta.gpu.nvml.Nvml;

/**
 * Polls NVML's PCIe rx/tx throughput in a daemon thread. Each NVML query itself samples a 20 ms window; the
 * thread pauses {@value #PAUSE_MS} ms between rx/tx pairs (about 11 pairs per second), so that it never competes
 * with the measured launch thread for a core or the driver.
 */
final class NvmlPcieMonitor implements PcieMonitor {
    static final long PAUSE_MS = 50;
    private final Nvml.Device device;
    private final PcieStats.Accumulator samples;
    private volatile boolean running;
    private volatile String failure;
    private Thread thread;

    NvmlPcieMonitor(Nvml.Device device, int index) {
        this.device = device;
        this.samples = new PcieStats.Accumulator("NVML device " + index);
    }

    @Override
    public void start() {
        running = true;
        thread = Thread.ofPlatform().daemon().name("aorta-pcie-nvml").start(() -> {
            try {
                while (running) {
                    double rx = device.pcieRxKBps() / 1024.0;
                    double tx = device.pcieTxKBps() / 1024.0;
                    synchronized (samples) {
                        samples.add(rx, tx);
                    }
                    Thread.sleep(PAUSE_MS);
                }
            } catch (RuntimeException e) {
                failure = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public PcieStats stop() {
        running = false;
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (samples) {
            return samples.stats(failure == null ? "no sample finished while the pattern ran" : failure);
        }
    }
}
