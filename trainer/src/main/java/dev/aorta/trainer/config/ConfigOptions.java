package dev.aorta.trainer.config;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --config FILE} and {@code --override key.path=value} options, as a picocli mixin for the command that
 * runs the trainer. {@code --override} takes several pairs after one flag and may be repeated; every pair is kept
 * and applied in the order given (AORTA keeps only the last flag's list).
 */
public final class ConfigOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "YAML configuration; keys it leaves out keep the defaults of config/default.yaml.")
    Path config;

    @Option(names = "--override", arity = "1..*", paramLabel = "KEY=VALUE",
            description = "Set one key, e.g. training.max_steps=20 model.num_layers=2; repeatable, applied in order.")
    List<String> overrides = new ArrayList<>();

    public TrainerConfig load() {
        return ConfigLoader.load(config, overrides);
    }
}
