package dev.aorta.trainer.config;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code dataloader}: {@code num_workers} host threads generate samples ahead of the step; {@code pin_memory}
 * stages batches in page-locked memory so that the H2D copy on the aux stream is asynchronous.
 */
public record DataloaderConfig(int numWorkers, boolean pinMemory) {
    public DataloaderConfig {
        require(numWorkers >= 0, "dataloader.num_workers", "a whole number of at least 0 (0: the training thread)");
    }

    static DataloaderConfig defaults() {
        return new DataloaderConfig(4, true);
    }
}
