package dev.aorta.workloads.spi;

/** A rate in the workload's own unit, e.g. {@code 51.8 TFLOP/s} or {@code 250000 kernels/s}. */
public record Throughput(double value, String unit) {
}
