package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ConfigException;

import java.util.Locale;
import java.util.stream.Collectors;

/** The refusal, before training starts, of a configuration whose {@link MemoryEstimate} exceeds the free memory. */
public final class MemoryFit {
    private MemoryFit() {
    }

    /**
     * @param freeBytes the device's free memory as the driver reports it once the rank's context exists
     * @param device    how to name the device in the message, e.g. "GPU 3 (NVIDIA H100 80GB HBM3)"
     */
    public static void requireFits(MemoryEstimate estimate, long freeBytes, String device) {
        if (estimate.total() <= freeBytes) {
            return;
        }
        String parts = estimate.parts().entrySet().stream().filter(e -> e.getValue() > 0)
                .map(e -> e.getKey() + " " + gib(e.getValue())).collect(Collectors.joining(", "));
        throw new ConfigException("the configuration needs at least " + gib(estimate.total()) + " per rank (" + parts
                + ") but " + device + " has " + gib(freeBytes) + " free; expected a smaller training.batch_size,"
                + " model.num_layers or model.model_dim, more training.gradient_accumulation, or a sharding"
                + " strategy that keeps less per rank (fsdp.sharding_strategy=full_shard,"
                + " fsdp.limit_all_gathers=true).");
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
