package dev.aorta.workloads.spi;

/** One workload option: {@code --param name=value}; values are integers unless said otherwise. */
public record WorkloadParameter(String name, String defaultValue, String description) {
}
