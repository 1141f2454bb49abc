package dev.aorta.workloads.launchoverhead.pcie;

/** Samples a GPU's PCIe throughput in the background between {@link #start()} and {@link #stop()}; used once. */
public interface PcieMonitor {

    void start();

    /** Stops sampling and returns what was seen. */
    PcieStats stop();

    /** A monitor that samples nothing and says why. */
    static PcieMonitor unavailable(String reason) {
        return new PcieMonitor() {
            @Override
            public void start() {
            }

            @Override
            public PcieStats stop() {
                return PcieStats.unavailable(reason);
            }
        };
    }
}
