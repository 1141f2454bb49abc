package dev.aorta.trainer.telemetry;

/**
 * One reading of the GPU's state at host time {@code timeNs} ({@link System#nanoTime()}). A value the device or
 * the driver does not offer is NaN.
 *
 * @param smClockMHz     the SM clock
 * @param memoryClockMHz the memory clock
 * @param powerW         board power draw
 * @param temperatureC   die temperature
 * @param gpuUtilPct     percent of the driver's last sample period in which a kernel ran
 * @param memoryUtilPct  percent of that period in which device memory was read or written
 * @param pcieTxMBps     PCIe transmit throughput over the driver's last 20 ms, MB/s (10^6 bytes)
 * @param pcieRxMBps     PCIe receive throughput, likewise
 */
public record TelemetrySample(long timeNs, double smClockMHz, double memoryClockMHz, double powerW,
                              double temperatureC, double gpuUtilPct, double memoryUtilPct, double pcieTxMBps,
                              double pcieRxMBps) {
}
