package dev.aorta.workloads.launchoverhead.pcie;

/**
 * PCIe throughput seen while a pattern ran, in MB/s (NVML's KB/s / 1024; nvidia-smi dmon's MB/s as printed):
 * averages and peaks over {@code samples} samples from {@code source}, or why nothing could be sampled.
 */
public record PcieStats(String source, String unavailableReason, int samples,
                        double rxAvgMBps, double rxPeakMBps, double txAvgMBps, double txPeakMBps) {

    public static PcieStats unavailable(String reason) {
        return new PcieStats(null, reason, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }

    public boolean available() {
        return unavailableReason == null;
    }

    /** Sums samples as they come; one thread. */
    public static final class Accumulator {
        private final String source;
        private int samples;
        private double rxSum;
        private double txSum;
        private double rxPeak;
        private double txPeak;

        public Accumulator(String source) {
            this.source = source;
        }

        public void add(double rxMBps, double txMBps) {
            samples++;
            rxSum += rxMBps;
            txSum += txMBps;
            rxPeak = Math.max(rxPeak, rxMBps);
            txPeak = Math.max(txPeak, txMBps);
        }

        /** The statistics; unavailable with {@code noSampleReason} when nothing was added. */
        public PcieStats stats(String noSampleReason) {
            if (samples == 0) {
                return unavailable(source + ": " + noSampleReason);
            }
            return new PcieStats(source, null, samples, rxSum / samples, rxPeak, txSum / samples, txPeak);
        }
    }
}
